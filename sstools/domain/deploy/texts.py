"""The plan's Russian summary line (the guardrail card shows it as the impact)."""

from __future__ import annotations

from sstools.domain.deploy.models import UnresolvedChart
from sstools.text import plural_form

_SHOWN_TITLES = 5


def plan_summary(
    changed: list[str],
    planned: int,
    target_env_id: str,
    unresolved: list[UnresolvedChart],
    origin: str = "",
) -> str:
    """«3 дашборда будут изменены в prod: A, B, C» or «Изменений нет: …», plus what will not
    resolve; ``origin`` follows the target (« из копии …» for a restore)."""
    if changed:
        verb = plural_form(
            len(changed),
            "дашборд будет изменён",
            "дашборда будут изменены",
            "дашбордов будут изменены",
        )
        titles = ", ".join(f"«{title}»" for title in changed[:_SHOWN_TITLES])
        more = f" и ещё {len(changed) - _SHOWN_TITLES}" if len(changed) > _SHOWN_TITLES else ""
        text = f"{len(changed)} {verb} в {target_env_id}{origin}: {titles}{more}"
    else:
        noun = plural_form(
            planned, "дашборд совпадает", "дашборда совпадают", "дашбордов совпадают"
        )
        text = f"Изменений нет: {planned} {noun} с {target_env_id}"
    if unresolved:
        charts = plural_form(
            len(unresolved),
            "график не будет перенесён",
            "графика не будут перенесены",
            "графиков не будут перенесены",
        )
        text += f"; {len(unresolved)} {charts}: их набор данных не найдётся в цели"
    return text


# -- applying a plan (sstools/domain/deploy/apply.py and its routes) ------------------------------

STEP_CONNECTIVITY = "проверка подключения к базам цели"
STEP_SNAPSHOT = "снимок текущей версии цели в git"
STEP_IMPORT = "импорт «{title}»"
STEP_RESTORE = "восстановление дашборда {uuid} из снимка"
STEP_DELETE_CREATED = "удаление созданного выкаткой"
TARGET_UNREACHABLE = "цель {env} недоступна, ничего не изменено: {error}"
SNAPSHOT_FAILED = "не удалось снять текущую версию цели, ничего не изменено: {error}"
IMPORT_FAILED = "импорт «{title}» не удался: {error}"
ROLLBACK_FAILED = "откат не завершён: {error}"
STALE_PLAN = (
    "цель изменилась после оценки: план, который вы одобрили, больше не совпадает с "
    "окружением {env}; оцените выкатку заново"
)
DIGEST_MISSING = "нужен digest плана: сначала оцените выкатку (POST /api/deploy/plan)"
ONE_DASHBOARD = "выкатка переносит один дашборд; для нескольких используйте /api/migrations"
NOT_APPLICABLE = (
    "у цели нет подключения для базы «{database}»; укажите database_mapping или создайте "
    "подключение в цели"
)
ROLLBACK_KIND = "откатить можно только выкатку или миграцию, а задача {task} — {kind}"
ROLLBACK_ENV = "задача {task} выкатывала в «{env}», а не в «{asked}»"
ROLLBACK_UNFINISHED = "задача {task} ещё выполняется; откатить можно после её окончания"
ROLLBACK_NO_SNAPSHOT = (
    "у задачи {task} нет снимка: окружения стадии {stage} не снимаются перед выкаткой "
    "(SSTOOLS_SNAPSHOT_STAGES), или задача остановилась до снимка"
)
