"""The words of a conversation's turns, for the offline planner (issue 36): thanks, nudges, a
yes, an ordinal, what the agent asked for and what a reply refers to
(:mod:`sstools.agent.offline.followup` reads them, folded as the frames are)."""

from __future__ import annotations

# «sorry, wrong window», «ой, не туда»: a message sent by mistake (then no thanks is answered).
APOLOGIES = (
    "sorry", "wrong", "window", "chat", "oops", "my", "bad", "извини", "извините", "сорян",
    "сори", "ой", "упс", "не", "туда", "тот", "чат", "окно", "ошибся", "ошиблась", "промахнулся",
)  # fmt: skip
# Words of thanks: a message of only these asks for nothing (a greeting gets the page's default).
THANKS = (
    "спасибо", "спс", "благодарю", "ок", "окей", "ok", "okay", "хорошо", "понятно", "ясно",
    "отлично", "супер", "большое", "всё", "все", "thanks", "thank", "you", "thx", "cool",
    "great", "a", "lot", "so", "much", "пасиб", "пасибо", "спасибки", "spasibo", "spasib",
    "sps", "норм", "норма", "выручил", "vyruchil", "помог", "pomog", "молодец", "круто", "класс",
    "nice", "awesome", "perfect", "got", "it", "пока", "на", "этом", "bye", "that", "s", "all",
    "ты", "вы", "очень", "for", "now", "very", "really", "just", "again", "today",
    *APOLOGIES,
)  # fmt: skip
# «ну что там?», «и?», "any news?": the whole message, waiting for what was started.
NUDGES = (
    "ну и", "и", "ну что", "ну что там", "что там", "и что", "ну как", "ну как там", "ну",
    "ну чего", "чего там", "как оно", "и как", "так что", "ну так что", "готово", "уже",
    "so", "and", "well", "and now", "any news", "news", "status", "and so", "done", "any luck",
    "ну что там с этим", "что по итогу", "итог",
)  # fmt: skip
# «да, её», "yes, that one": an answer agreeing to what the question back named (folded words).
AGREED = (
    "да", "ага", "угу", "давай", "её", "ее", "его", "их", "из", "неё", "нее", "него", "эту",
    "этот", "это", "конечно", "yes", "yep", "yeah", "sure", "ok", "okay", "that", "one",
    "it", "go", "ahead", "please", "пожалуйста", "da", "davay",
)  # fmt: skip
# «оба», "both": every choice a question back listed (folded words of the answer).
EVERY_CHOICE = ("оба", "обе", "обоих", "both", "oba", "все", "всех", "all", "vse")
# «первый», "the second": which of the choices a question back listed (folded, whole answer).
ORDINALS = {
    "perviy": 0, "pervyy": 0, "pervaya": 0, "pervoe": 0, "pervyi": 0, "first": 0,
    "the first": 0, "vtoroy": 1, "vtoraya": 1, "vtoroe": 1, "second": 1, "the second": 1,
    "tretiy": 2, "tretya": 2, "trete": 2, "third": 2, "the third": 2,
    "pervuyu": 0, "pervogo": 0, "pervoy": 0, "vtoruyu": 1, "vtorogo": 1, "tretyu": 2,
    "tretego": 2,
}  # fmt: skip
# An answer that asks for something without a «?»: «Нужно указать окружение.», "Please specify
# the environment." — a short reply after it completes the request, as after a question.
ASKING_WORDS = (
    "укажите", "уточните", "назовите", "выберите", "напишите", "нужно указать",
    "нужно выбрать", "нужно назвать", "нужно сообщение", "нужен", "нужна", "specify",
    "choose", "pick one", "let me know which", "tell me which", "please name", "which one",
)  # fmt: skip
# What the agent's latest answer named, referred to («кто им владеет», "restore it").
REFERRING_WORDS = (
    "его", "него", "ему", "нему", "им", "ним", "её", "ее", "неё", "нее", "ей", "ней", "их",
    "них", "эту", "этой", "этого", "этим", "тот", "ту", "того", "той", "it", "them", "that",
    "that one", "this one", "оттуда", "там же", "оба", "обе", "обоих", "both",
)  # fmt: skip
