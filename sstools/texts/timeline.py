"""Russian text of a dashboard's timeline: each point's label, and the API's refusals."""

from __future__ import annotations

IN_COMMIT = "коммите {commit}"  # «дашборда … нет в коммите 3f9c2b7e»
UNKNOWN_DASHBOARD = "дашборда #{id} нет в окружении {env}"
UNKNOWN_ENV = "env_id: окружения {env} нет (известны: {known})"

GIT_LABEL = "коммит в main: {message}"
# Who wrote a snapshot point's write: its starter and, where a second person approved it, both.
SNAPSHOT_WHO_APPROVED = "{who}, одобрил(а) {approver}"
SNAPSHOT_LABEL = "снимок перед выкаткой {task} в {env}"
BACKUP_LABEL = "резервная копия {env}"
LIVE_LABEL = "сейчас в {env}"
