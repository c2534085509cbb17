"""Why a connection failed, in words a person can act on. httpx's and dulwich's own texts are
English («All connection attempts failed») and may carry an address with its credentials, so
only the kind of failure is said; the raw text goes to the log."""

from __future__ import annotations

import httpx

NOT_CONNECTED = "соединение не установлено: сервер не отвечает по этому адресу"
CUT_OFF = "соединение оборвалось, ответ не получен"
TIMED_OUT = "сервер не ответил вовремя"
PROXY = "прокси не пропустил запрос"
BAD_ADDRESS = "адрес задан неверно"
OTHER = "ошибка соединения"

_BY_KIND: tuple[tuple[type[BaseException], str], ...] = (
    (httpx.TimeoutException, TIMED_OUT),
    (httpx.ProxyError, PROXY),
    (httpx.ConnectError, NOT_CONNECTED),
    (httpx.UnsupportedProtocol, BAD_ADDRESS),
    (httpx.InvalidURL, BAD_ADDRESS),
    (httpx.TransportError, CUT_OFF),
    (TimeoutError, TIMED_OUT),
    (ConnectionRefusedError, NOT_CONNECTED),
    (ConnectionError, CUT_OFF),
)


def reason(exc: BaseException) -> str:
    """What kind of connection failure ``exc`` is: «соединение не установлено: …»."""
    for kind, words in _BY_KIND:
        if isinstance(exc, kind):
            return words
    return OTHER
