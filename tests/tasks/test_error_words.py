"""What a task's record says of a failed connection: the kind of failure in Russian, never the
library's English text or the address it held."""

from __future__ import annotations

import httpx

from sstools.tasks.reasons import error_words


def test_a_connection_failure_reads_in_russian_without_its_address() -> None:
    refused = httpx.ConnectError("All connection attempts failed")
    assert error_words(refused) == "соединение не установлено: сервер не отвечает по этому адресу"
    reset = ConnectionResetError(104, "Connection reset by peer to http://svc:s3cret@db.internal")
    assert error_words(reset) == "соединение оборвалось, ответ не получен"
