"""Secrets out of every value that leaves the server: one judgement of names and of values.

A plan's changed fields (``POST /api/deploy/plan``, the approvals, the card, the compare page, the
events and checkpoints that keep the card, the model's excerpts) and a 422's echo of its input
show values read from Superset's exports or from a request. Two things make a value a secret:

- its **name**: a key, or any segment of a dotted path (``auth.bearer``), that reads like
  password, passwd, pwd, secret, token, bearer, credentials, api key, private key, access key…
  in any casing and with any separators (``apiKey``, ``API-KEY``, ``mapbox_api_key``); a name
  ending in ``key`` holding a long random-looking string;
- its **text**: a credential inside a string — a URL's password (``scheme://user:pass@host``),
  a query parameter named like a secret (``?access_token=…``, ``&api_key=…``, ``token=…``), a
  ``Bearer …`` credential.

The value is replaced by a mask; the rest of the text stays readable (a URL keeps its host, a
query its other parameters). Over-redaction hides what a person must review, so only these
shapes are masked: ``metric: "count"`` or a URL without credentials is shown as it is.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "••••••"  # what a person reads instead of a secret

# A name's words: camelCase and digits split, every separator dropped, lower-cased.
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# Found anywhere in a name's words run together («mapboxapikey», «xaccesstoken»).
_STEMS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "bearer",
    "credential",
    "apikey",
    "privatekey",
    "accesskey",
    "secretkey",
    "signingkey",
    "encryptionkey",
    "masterkey",
    "authkey",
    "sessionkey",
    "accountkey",
    "serviceaccount",
    "encrypted",
    "authorization",
    "cookie",
)
# Short words that are secrets only as a whole word (``pwd``, not ``pwdless``), and words that
# name one only as the name's last word (``db_pass``, ``basic_auth``; not ``pass_rate``).
_WORDS = frozenset({"pwd", "creds", "signature", "otp", "jwt"})
_LAST_WORDS = frozenset({"pass", "auth", "sig"})
# A name whose last word is «key» holds a secret when its value looks random.
_KEY_WORD = "key"
_RANDOM = re.compile(r"[A-Za-z0-9+/=_.\-:]{16,}")

# scheme://user:password@host — the password goes, the user and host stay.
_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@?#]*:)[^\s@/?#]+@")
# name=value in a query string or a line of settings; the name is judged by secret_name.
_PARAMETER = re.compile(r"(?P<head>(?:^|[?&;#\s,(])(?P<name>[\w.\-\[\]]+)=)(?P<value>[^&#\s;,)]+)")
_BEARER = re.compile(r"(?P<head>\bBearer\s+)[A-Za-z0-9\-._~+/]{8,}=*", re.IGNORECASE)


def _words(name: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(name)]


def secret_name(name: str) -> bool:
    """Whether a key or a dotted path (``auth.bearer``, ``api.key``) names a secret, in any
    casing and with any separators."""
    words = _words(name)
    joined = "".join(words)
    if any(stem in joined for stem in _STEMS) or _WORDS.intersection(words):
        return True
    lasts = (_words(segment)[-1:] for segment in name.split("."))
    return any(last and last[0] in _LAST_WORDS for last in lasts)


def _random_looking(value: Any) -> bool:
    return (
        isinstance(value, str)
        and bool(_RANDOM.fullmatch(value))
        and any(ch.isdigit() for ch in value)
        and any(ch.isalpha() for ch in value)
    )


def secret_field(name: str, value: Any) -> bool:
    """Whether ``value`` under ``name`` (a key or a dotted path) is a secret as a whole."""
    if secret_name(name):
        return True
    words = _words(name.rsplit(".", 1)[-1])
    return bool(words) and words[-1] == _KEY_WORD and _random_looking(value)


def redact_text(text: str, mask: str = MASK) -> str:
    """``text`` with every credential inside it masked: URL passwords, secret-named query
    parameters, ``Bearer`` credentials."""
    text = _USERINFO.sub(lambda m: f"{m['head']}{mask}@", text)
    text = _BEARER.sub(lambda m: f"{m['head']}{mask}", text)
    return _PARAMETER.sub(
        lambda m: f"{m['head']}{mask}" if secret_name(m["name"]) else m[0],
        text,
    )


def redact(value: Any, mask: str = MASK) -> Any:
    """``value`` (JSON-like data) with every secret masked: values under secret names whole, at
    any depth; credentials inside strings (:func:`redact_text`). Other values are kept."""
    if isinstance(value, dict):
        return {
            key: mask if secret_field(str(key), one) else redact(one, mask)
            for key, one in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(one, mask) for one in value]
    if isinstance(value, str):
        return redact_text(value, mask)
    return value
