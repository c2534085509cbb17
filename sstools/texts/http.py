"""Russian text every router shares: signing in, roles, environments, Superset, the last resort."""

from __future__ import annotations

UNKNOWN_ENVIRONMENT = "окружения {env!r} нет (известны: {known})"
DASHBOARD_ENV_NEEDED = "укажите окружение, в котором у дашборда этот номер"
DASHBOARD_UNREADABLE = "Superset окружения {env} не ответил: дашборд не найти"
NO_DASHBOARD = "дашборда #{id} в {env} нет"
# A dashboard filter (a page's UIContext, the chart data route's body) that cannot be applied.
FILTER_CONTROL_CHARACTERS = "не должно содержать управляющих, невидимых символов и переводов строки"
FILTER_VALUE_TOO_LONG = "значение фильтра длиннее {limit} символов"

NOT_AUTHENTICATED = "вы не вошли: передайте заголовок Authorization: Bearer <token>"
CSRF_MISSING = "нет заголовка {header} или он неверен"
ACCOUNT_GONE = "этой учётной записи больше нет: войдите снова"
SESSION_REVOKED = "токен отозван (вы вышли или сменили пароль): войдите снова"
# A personal access token (``sstools tokens``) that signs nobody in.
PAT_UNKNOWN = "токен доступа не найден или отозван: создайте новый (sstools tokens create)"
PAT_FROM_SESSION_ONLY = "токен доступа создаётся только после входа, не другим токеном"
PAT_NAME_TAKEN = "токен «{name}» у вас уже есть: выберите другое имя или отзовите его"
PAT_NAME_INVALID = "имя токена — от 1 до 64 печатных символов в одну строку"
PAT_NOT_FOUND = "токена «{name}» у вас нет"
PAT_EXPIRED = "срок действия токена доступа истёк: создайте новый (sstools tokens create)"
SESSION_EXPIRED = "срок действия токена истёк"
CREDENTIAL_INVALID = "токен недействителен: {reason}"
CLAIMS_INVALID = "токен недействителен: неизвестная роль или испорченные данные"
LOGIN_REFUSED = "неверное имя пользователя или пароль"
LOGIN_THROTTLED = "слишком много попыток входа; повторите через {seconds} с"

ROLE_REQUIRED = "{operation}: нужна роль «{required}» (ваша роль — «{actual}»)"
ROLES = {"analyst": "аналитик", "engineer": "инженер", "admin": "администратор"}
THIS_OPERATION = "эта операция"

SUPERSET_UNAVAILABLE = "окружение Superset {env!r} недоступно: {message}"
SUPERSET_REFUSED_ACCOUNT = (
    "окружение Superset {env!r} отказало сервисной учётной записи sstools: {message}"
)
SUPERSET_SAYS = "окружение Superset {env!r}: {message}"

INTERNAL_ERROR = "внутренняя ошибка сервера; она записана в журнал"
DATABASE_BUSY = (
    "сервис перегружен: ни одно соединение с базой не освободилось вовремя; повторите попытку"
)
DATABASE_BUSY_WRITE = " (то, что запрос успел сделать, могло сохраниться: сначала проверьте)"
BODY_TOO_LARGE = "тело запроса больше предела в {limit} байт"
METRICS_UNAUTHORIZED = "передайте Authorization: Bearer <SSTOOLS_METRICS_TOKEN>"
