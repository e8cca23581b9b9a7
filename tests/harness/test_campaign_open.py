"""campaign.open, the one way `taskbench metg` and `taskbench study` get their campaign: resumed
(named, or the latest unfinished), an unfinished one of the same request continued, or created;
claimed before anything runs, so a second process cannot execute it meanwhile."""

import pytest

from taskbench.errors import UserError
from taskbench.measure.sweep import campaign
from taskbench.store import Store


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "tb.db")
    yield opened
    opened.close()


def _new(name, params):
    return lambda: (name, params)


def test_creates_and_claims_a_new_campaign(store, tmp_path):
    opened = campaign.open(store, "metg", resume=None, new=_new("a", {"x": 1}), git_revision="r")
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
    latest = campaign.open(store, "metg", resume="", new=_new("never", {}), git_revision=None)
    assert (latest.name, latest.params, latest.stored["status"]) == ("a", {"name": "a"}, "running")
    named = campaign.open(store, "metg", resume="b", new=_new("never", {}), git_revision=None)
    assert (named.name, named.stored["status"]) == ("b", "done")
    assert not store.has_campaign("never")


def test_resume_asks_the_command_which_and_whether(store):
    campaign.create(store, "s1", "study", {"study": "imbalance"}, None)
    campaign.create(store, "s2", "study", {"study": "discovery"}, None)
    chosen = campaign.open(store, "study", resume="", new=_new("never", {}), git_revision=None,
                           latest=lambda: store.campaign("s1"))
    assert chosen.name == "s1"

    def refuse(target):
        raise UserError(f"not {target['name']}")
    with pytest.raises(UserError, match="not s2"):
        campaign.open(store, "study", resume="s2", new=_new("never", {}), git_revision=None, accept=refuse)


def test_an_unfinished_campaign_of_the_same_request_is_continued(store):
    campaign.create(store, "old", "study", {"ask": 1}, None)

    def same(params):
        return next((c for c in store.campaigns("study") if c["params"] == params), None)
    again = campaign.open(store, "study", resume=None, new=_new("new", {"ask": 1}), git_revision=None, unfinished=same)
    assert (again.name, again.continued) == ("old", True) and not store.has_campaign("new")
    other = campaign.open(store, "study", resume=None, new=_new("new", {"ask": 2}), git_revision=None, unfinished=same)
    assert (other.name, other.continued, other.stored) == ("new", False, None)


def test_a_resumed_campaign_of_another_kind_is_refused(store):
    campaign.create(store, "p", "peak", {}, None)
    with pytest.raises(UserError, match="campaign 'p' is a peak campaign, not metg"):
        campaign.open(store, "metg", resume="p", new=_new("never", {}), git_revision=None)
