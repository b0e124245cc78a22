"""One contract per port, run against every home: what keeps the embedded and AWS homes identical."""

from __future__ import annotations

from datetime import timedelta

import pytest

from mnemo.crypto import SealError
from mnemo.domain.models import Profile, SessionState, TunedWeights, UserSettings
from mnemo.errors import ErasureUnderway
from mnemo.ports import StoredProfile
from tests.contract.conftest import Home


def test_profile_round_trip_is_sealed_and_per_user(home: Home, clock) -> None:
    assert home.profiles.get("t1", "u1") == StoredProfile()
    profile = Profile(name="Ana", constraints=["User is allergic to sesame."], updated_at=clock.now())
    until = clock.now() + timedelta(hours=1)
    home.profiles.put("t1", "u1", profile, 0, until)
    stored = home.profiles.get("t1", "u1")
    assert (stored.profile.constraints, stored.built_at, stored.generation, stored.valid_until) == (
        ["User is allergic to sesame."], 0, 0, until)
    assert stored.is_current(clock.now())
    assert not stored.is_current(until)  # a memory it was built from has expired by then
    assert home.profiles.get("t1", "u2") == StoredProfile()
    assert home.profiles.get("t2", "u1") == StoredProfile()
    assert b"sesame" not in home.raw()
    home.profiles.delete_user("t1", "u1")
    assert home.profiles.get("t1", "u1") == StoredProfile()


def test_the_generation_makes_a_build_stale_and_a_late_build_stays_stale(home: Home, clock) -> None:
    # given a build at generation 0
    home.profiles.put("t1", "u1", Profile(name="Ana"), 0, None)
    # when a memory changes, the build is stale; for that user only
    home.profiles.invalidate("t1", "u1")
    assert home.profiles.get("t1", "u1").generation == 1
    assert not home.profiles.get("t1", "u1").is_current(clock.now())
    assert home.profiles.get("t1", "u2").generation == 0
    # a reader that started before the change stores its build: it is dropped
    home.profiles.put("t1", "u1", Profile(name="Old"), 0, None)
    assert not home.profiles.get("t1", "u1").is_current(clock.now())
    assert home.profiles.get("t1", "u1").profile.name == "Ana"
    # a build from the new generation stands; invalidating a user with no row starts one
    home.profiles.put("t1", "u1", Profile(name="Bea"), 1, None)
    assert home.profiles.get("t1", "u1").is_current(clock.now())
    home.profiles.invalidate("t1", "u3")
    assert home.profiles.get("t1", "u3").generation == 1
    # a build begun before an erase is never stored after it
    home.profiles.delete_user("t1", "u1")
    home.profiles.put("t1", "u1", Profile(name="Bea"), 1, None)
    assert home.profiles.get("t1", "u1") == StoredProfile()


def test_the_apps_fields_are_kept_apart_from_the_derived_profile(home: Home, clock) -> None:
    home.profiles.put_custom("t1", "u1", {"plan": "pro-sesame"})
    home.profiles.put("t1", "u1", Profile(name="Ana", custom={"ignored": "x"}), 0, None)
    home.profiles.invalidate("t1", "u1")
    stored = home.profiles.get("t1", "u1")
    assert stored.custom == {"plan": "pro-sesame"}
    assert stored.profile.custom == {}  # a build never carries the app's fields
    assert b"pro-sesame" not in home.raw()
    home.profiles.put_custom("t1", "u1", {})
    assert home.profiles.get("t1", "u1").custom == {}
    assert home.profiles.get("t1", "u1").profile.name == "Ana"


def test_settings_default_and_change(home: Home) -> None:
    assert home.settings.get("t1", "u1").memory_enabled is True
    home.settings.put("t1", "u1", UserSettings(memory_enabled=False))
    assert home.settings.get("t1", "u1").memory_enabled is False
    assert home.settings.get("t2", "u1").memory_enabled is True
    home.settings.delete_user("t1", "u1")
    assert home.settings.get("t1", "u1").memory_enabled is True


def test_sessions_expire_and_are_sealed(home: Home, clock) -> None:
    state = SessionState(session_id="s1", open_questions=["Which hotel in Alfama?"], updated_at=clock.now(),
                         expires_at=clock.now() + timedelta(hours=24))
    home.sessions.put("t1", "u1", state)
    assert home.sessions.get("t1", "u1", "s1", clock.now()).open_questions == ["Which hotel in Alfama?"]
    assert home.sessions.get("t1", "u2", "s1", clock.now()) is None
    assert b"Alfama" not in home.raw()
    assert home.sessions.get("t1", "u1", "s1", clock.now() + timedelta(hours=25)) is None
    home.sessions.delete_user("t1", "u1")
    assert home.sessions.get("t1", "u1", "s1", clock.now()) is None


def test_weights_are_versioned_and_never_overwritten(home: Home, clock) -> None:
    assert home.weights.current("t1") is None
    for version, a in ((1, 0.62), (2, 0.65)):
        home.weights.put(TunedWeights(tenant_id="t1", version=version, a=a, b=0.23, c=0.15, created_at=clock.now()))
    home.weights.put(TunedWeights(tenant_id="t1", version=2, a=0.99, b=0.01, c=0.0, created_at=clock.now()))
    current = home.weights.current("t1")
    assert (current.version, current.a) == (2, 0.65)
    assert home.weights.current("t2") is None


def test_data_keys_are_per_user_stable_and_shreddable(home: Home) -> None:
    first = home.vault.data_key("t1", "u1")
    assert len(first) == 32
    assert home.vault.data_key("t1", "u1") == first
    assert home.vault.data_key("t1", "u2") != first
    assert home.vault.data_key("t2", "u1") != first
    sealed = home.vault.seal("t1", "u1", "r1", "memory", b"secret thing")
    assert home.vault.open("t1", "u1", "r1", "memory", sealed) == b"secret thing"
    with pytest.raises(SealError):
        home.vault.open("t1", "u2", "r1", "memory", sealed)  # another user's key
    home.vault.destroy("t1", "u1")
    # until the erase has finished no key can be made (a write racing it is refused), and none is read
    assert home.vault.erasing("t1", "u1")
    assert home.vault.existing_key("t1", "u1") is None
    with pytest.raises(ErasureUnderway):
        home.vault.data_key("t1", "u1")
    with pytest.raises(SealError):
        home.vault.open("t1", "u1", "r1", "memory", sealed)
    home.vault.destroy("t1", "u1")  # a retried erase repeats the step harmlessly
    home.vault.finish_erase("t1", "u1")
    assert not home.vault.erasing("t1", "u1")
    assert home.vault.data_key("t1", "u1") != first  # a new life, the old data is gone for good
    with pytest.raises(SealError):
        home.vault.open("t1", "u1", "r1", "memory", sealed)
    assert home.vault.data_key("t1", "u2") != first  # the other users were never held up


def test_a_profile_stored_before_the_generation_keeps_the_apps_fields(home: Home, clock) -> None:
    # given a profile as the earlier release stored it: one sealed document, custom inside
    legacy = Profile(name="Ana", custom={"plan": "pro"}, updated_at=clock.now())
    sealed = home.vault.seal("t1", "u1", "profile", "profile", legacy.model_dump_json().encode())
    if home.name == "local":
        with home.profiles._db.write() as conn:
            conn.execute("INSERT INTO profiles (tenant_id, user_id, sealed, updated_at) VALUES (?,?,?,?)",
                         ("t1", "u1", sealed, ""))
    else:
        home.profiles._t.put({"pk": {"S": "t1#u1"}, "sk": {"S": "PROFILE"}, "sealed": {"B": sealed}})
    # it is stale (built at no known generation) and its custom fields are read
    stored = home.profiles.get("t1", "u1")
    assert (stored.custom, stored.is_current(clock.now())) == ({"plan": "pro"}, False)
    # and they survive the first build stored over it
    home.profiles.put("t1", "u1", Profile(name="Bea"), stored.generation, None)
    stored = home.profiles.get("t1", "u1")
    assert (stored.custom, stored.profile.name, stored.is_current(clock.now())) == ({"plan": "pro"}, "Bea", True)


def test_an_old_database_gets_the_new_columns(tmp_path) -> None:
    import sqlite3

    from mnemo.adapters.local.sqlite_db import Database

    old = sqlite3.connect(tmp_path / "old.db")
    old.execute("CREATE TABLE profiles (tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, sealed BLOB NOT NULL, "
                "updated_at TEXT NOT NULL, PRIMARY KEY (tenant_id, user_id)) WITHOUT ROWID")
    old.commit()
    old.close()
    db = Database(tmp_path / "old.db")
    with db.read() as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(profiles)")}
    assert {"generation", "built_at", "valid_until", "custom"} <= columns
    Database(tmp_path / "old.db")  # opening again changes nothing


def test_an_old_databases_traces_become_a_rowid_table_and_keep_their_rows(tmp_path) -> None:
    import sqlite3

    from mnemo.adapters.local.sqlite_db import Database

    old = sqlite3.connect(tmp_path / "old.db")
    old.executescript(
        "CREATE TABLE traces (tenant_id TEXT NOT NULL, trace_id TEXT NOT NULL, user_id TEXT NOT NULL, "
        "body TEXT NOT NULL, expires_at TEXT NOT NULL, conversation_id TEXT, created_at TEXT NOT NULL, "
        "PRIMARY KEY (tenant_id, trace_id)) WITHOUT ROWID;"
        "CREATE INDEX traces_user ON traces (tenant_id, user_id);"
        "INSERT INTO traces VALUES ('t1', 'tr1', 'u1', '{}', '2999-01-01', 'c1', '2026-01-01');")
    old.close()
    db = Database(tmp_path / "old.db")
    with db.read() as conn:
        declared = conn.execute("SELECT sql FROM sqlite_master WHERE name='traces'").fetchone()[0]
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE tbl_name='traces' "
                                              "AND type='index' AND sql IS NOT NULL")}
        rows = conn.execute("SELECT * FROM traces").fetchall()
        # the key still refuses a second row of the same trace
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("INSERT INTO traces VALUES ('t1', 'tr1', 'u2', '{}', '2999-01-01', NULL, '2026-01-02')")
    assert "WITHOUT ROWID" not in declared.upper()
    assert indexes == {"traces_user", "traces_conversation"}
    assert rows == [("t1", "tr1", "u1", "{}", "2999-01-01", "c1", "2026-01-01")]
    Database(tmp_path / "old.db")  # opening again changes nothing
    with db.read() as conn:
        assert conn.execute("SELECT count(*) FROM traces").fetchone()[0] == 1
