"""The words of a second approval (``/api/approvals``): refusals in 4xx details, the reason a
run is cancelled with when the target moved."""

from __future__ import annotations

APPROVAL_NOT_FOUND = "запрос на одобрение не найден"
# The request is no longer waiting: why, by its status.
APPROVAL_CLOSED = {
    "pending": "запрос ещё не подтверждён тем, кто его сделал; одобрять пока нечего",
    "approved": "запрос уже одобрен",
    "denied": "запрос уже отклонён",
    "expired": "запрос истёк: попросите сделать его заново",
    "target_moved": "цель изменилась с момента запроса; запрос закрыт, ничего не изменено",
}
APPROVAL_UNDECIDABLE = "запрос уже решён или его операция больше не ждёт решения"
OWN_REQUEST = (
    "вы сделали этот запрос сами: одобрить его должен другой человек; ваше повторное "
    "одобрение ничего не изменило"
)
# A username removed and added again is another account: the old one's requests are not theirs.
NAMESAKE_REQUEST = (
    "этот запрос сделала прежняя, удалённая учётная запись с вашим именем: решить его можете "
    "не вы, а другой человек с нужной ролью"
)
ROLE_NEEDED = "одобрить это изменение может роль «{role}»; у вас — «{yours}»"
REQUESTER_SIGNED_OUT = (
    "тот, кто сделал запрос, с тех пор вышел из всех сеансов или сменил пароль: запрос не может "
    "быть выполнен от его имени; пусть он попросит заново"
)
REQUESTER_GONE = "учётной записи того, кто сделал запрос, больше нет; запрос не может быть выполнен"
TARGET_MOVED = (
    "цель изменилась с момента запроса: план изменения теперь другой, поэтому одобрение "
    "не применено и ничего не изменено; попросите составить план заново"
)
# What the model reads with the cancelled call (it then proposes a new plan).
TARGET_MOVED_REASON = "цель изменилась с момента запроса (второе одобрение не применено)"
NO_PLAN = (
    "план изменения сейчас не составить ({problem}); одобрение не применено, ничего не изменено"
)
NO_PLAN_ANSWER = "окружение не ответило"
