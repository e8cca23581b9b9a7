"""campaign.resumed and campaign.created, the one way `taskbench metg` and `taskbench study` get their
campaign: resumed (named, or the latest unfinished), an unfinished one of the same request
continued, or created; claimed before anything runs, so a second process cannot execute it
meanwhile."""

from types import SimpleNamespace

import pytest

from taskbench.errors import UserError
from taskbench.measure.sweep import campaign
from taskbench.store import Store
from taskbench.studies.execute import resume_target


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "tb.db")
    yield opened
    opened.close()


def test_creates_and_claims_a_new_campaign(store, tmp_path):
    opened = campaign.created(store, "metg", "a", {"x": 1}, "r")
    assert (opened.name, opened.params, opened.stored, opened.continued) == ("a", {"x": 1}, None, False)
    assert store.campaign("a")["status"] == "running" and store.campaign("a")["git_revision"] == "r"
    other = Store(tmp_path / "tb.db")
    try:
        with pytest.raises(UserError, match="another process .* is running campaign 'a'"):
            other.claim("a")
    finally:
        other.close()


def test_resumes_the_named_or_the_latest_unfinished(store):
    for name in ("a", "b"):
        campaign.create(store, name, "metg", {"name": name}, None)
    store.finish_campaign("b")
    latest = campaign.resumed(store, campaign.resume_target(store, "metg", ""))
    assert (latest.name, latest.params, latest.stored["status"]) == ("a", {"name": "a"}, "running")
    named = campaign.resumed(store, campaign.resume_target(store, "metg", "b"))
    assert (named.name, named.stored["status"]) == ("b", "done")


def test_a_study_resumes_its_own_latest_and_refuses_another_studys(store):
    campaign.create(store, "s1", "study", {"study": "imbalance"}, None)
    campaign.create(store, "s2", "study", {"study": "discovery"}, None)
    imbalance = SimpleNamespace(name="imbalance")
    assert resume_target(store, imbalance, "")["name"] == "s1"
    with pytest.raises(UserError, match="campaign 's2' is a discovery study, not imbalance"):
        resume_target(store, imbalance, "s2")


def test_an_unfinished_campaign_of_the_same_request_is_continued(store):
    campaign.create(store, "old", "study", {"ask": 1}, None)
    again = campaign.created(store, "study", "new", {"ask": 1}, None, unfinished=store.campaign("old"))
    assert (again.name, again.continued) == ("old", True) and not store.has_campaign("new")
    other = campaign.created(store, "study", "new", {"ask": 2}, None)
    assert (other.name, other.continued, other.stored) == ("new", False, None)


def test_a_resumed_campaign_of_another_kind_is_refused(store):
    campaign.create(store, "p", "peak", {}, None)
    with pytest.raises(UserError, match="campaign 'p' is a peak campaign, not metg"):
        campaign.resume_target(store, "metg", "p")
