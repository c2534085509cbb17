"""Russian text of the repository of exports: what it refuses, commit summaries and messages."""

from __future__ import annotations

UNKNOWN_BRANCH = "ветки {branch!r} нет в репозитории"
BRANCH_EXISTS = "ветка {branch!r} уже есть"
CONCURRENT_UPDATE = "ветка {branch!r} изменилась во время записи; повторите"
RESERVED_BRANCH = (
    "ветка {branch!r} — снимок выкатки: в ветки snapshots/ пишет только sstools, "
    "чтобы откат восстановил именно снятое; выберите другую ветку"
)
UNKNOWN_COMMIT = "коммита {commit} нет в репозитории"
CORRUPT_COMMIT = "коммит {commit} не проходит проверку ({detail}): его содержимое изменено"
EXPORT_NOT_ZIP = "экспорт Superset — не ZIP-архив"
EXPORT_NO_UUID = "в экспорте Superset у {name} нет uuid"

PUSH_REFUSED = "удалённый репозиторий отказал в отправке: проверьте адрес и права доступа к нему"
PUSH_UNREACHABLE = "удалённый репозиторий недоступен ({reason})"

COMMIT_FROM = "\n\nИз окружения {env}: {titles}\n"  # appended to a person's commit message
NOTHING_TO_COMMIT = "изменений нет: экспорт совпадает с веткой {branch}, коммит не создан"
COMMITTED = "коммит {commit} в ветке {branch}: изменено файлов — {files}"
STATUS_NEEDS_ENV = "dashboard_id требует env_id: id дашборда — id одного окружения"
