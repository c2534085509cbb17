"""Russian text of backups and restores: errors people read, task step names, the plan's origin.

The plan's summary is deploy's (``sstools.texts.deploy.plan_summary``) with ``ORIGIN``.
"""

from __future__ import annotations

NOT_FOUND = "резервной копии {id} нет"
CORRUPT = (
    "архив {name} повреждён: {reason}. Восстановление из него отменено, ничего не импортировано"
)
NOT_A_ZIP = "это не ZIP-архив или он обрезан"
NO_MANIFEST = "в архиве нет manifest.json"
BAD_MANIFEST = "manifest.json не читается"
FILE_MISSING = "нет файла {path}, указанного в манифесте"
FILE_EXTRA = "файл {path} не указан в манифесте"
FILE_UNREADABLE = "файл {path} не читается (контрольная сумма ZIP не сходится)"
CHECKSUM = "SHA-256 файла {path} не совпадает с манифестом"
UNMAPPED_DATABASE = (
    "target_env_id: в {env} нет подключения к базе «{database}» из резервной копии "
    "(ни по UUID, ни по имени); восстановление не создаёт и не меняет подключения"
)
UNKNOWN_ENV = "{field}: окружения {env} нет (известны: {known})"
STALE_PLAN = "окружение {env} изменилось после оценки: посмотрите план восстановления ещё раз"
DIGEST_MISSING = (
    "нужен digest плана восстановления: сначала оцените восстановление "
    "(POST /api/backups/{id}/restore/plan) и передайте его digest"
)

ORIGIN = " из копии {id}"  # «3 дашборда будут изменены в staging из копии …: …»
WHERE = "резервной копии {id}"

STEP_EXPORT = "экспорт окружения"
STEP_VERIFY = "проверка архива"
STEP_RETENTION = "удаление старых копий"
STEP_CONNECTIVITY = "проверка подключения к базам цели"
STEP_IMPORT = "импорт резервной копии"
EXPORT_FAILED = "экспорт {env} не удался: {error}"
IMPORT_FAILED = "импорт в {env} не удался: {error}"
TARGET_UNREACHABLE = "база цели {env} не отвечает: {error}; ничего не импортировано"
