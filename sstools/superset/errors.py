"""What can go wrong talking to Superset, as a small typed hierarchy::

SupersetError                 any failure; carries the environment id
 ├── SupersetUnavailable      connection refused, timeout, 5xx: try later
 ├── SupersetAuthError        the service account's login was refused (check its secret)
 ├── SupersetForbidden        403: the service account lacks that permission
 ├── SupersetNotFound         404: no such object in that environment
 └── SupersetBadRequest       400/422: Superset refused the request's content
"""

from __future__ import annotations


class SupersetError(Exception):
    def __init__(self, env_id: str, message: str) -> None:
        super().__init__(f"{env_id}: {message}")
        self.env_id = env_id
        self.message = message


class SupersetUnavailable(SupersetError):
    pass


class SupersetAuthError(SupersetError):
    pass


class SupersetForbidden(SupersetError):
    pass


class SupersetNotFound(SupersetError):
    pass


class SupersetBadRequest(SupersetError):
    pass
