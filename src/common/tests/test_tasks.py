from common.tasks import ping


def test_ping_is_registered_under_its_pinned_name_and_answers_pong() -> None:
    assert ping.name == "common.ping"
    assert ping.delay().get(timeout=5) == "pong"
