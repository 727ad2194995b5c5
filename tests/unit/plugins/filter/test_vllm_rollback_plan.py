"""vllm_rollback_plan: a rollback puts back every managed file as it was before the run.

Before it, the rollback copied back only the files a template had backed up: a secrets file the
run created for a new API key stayed (old clients got 401), and a secrets file the run removed
(the key unset) was gone for good."""
from vllm_testlib import load_filter

f = load_filter()

OPTIONS, ENV, SECRETS, UNIT = ("/etc/vllm/vllm.yaml", "/etc/vllm/vllm.env", "/etc/vllm/secrets.env",
                               "/etc/systemd/system/vllm.service")


def before(**existing):
    """A registered stat loop: ``existing`` maps a path to its (owner, group, mode)."""
    results = []
    for path in (OPTIONS, ENV, SECRETS, UNIT):
        attrs = existing.get(path)
        stat = {"exists": False} if attrs is None else {
            "exists": True, "pw_name": attrs[0], "gr_name": attrs[1], "mode": attrs[2]}
        results.append({"item": path, "stat": stat, "changed": False})
    return {"results": results, "changed": False}


ALL = {OPTIONS: ("root", "vllm", "0640"), ENV: ("root", "vllm", "0640"),
       SECRETS: ("root", "root", "0600"), UNIT: ("root", "root", "0644")}
SKIPPED = {"changed": False, "skipped": True, "skip_reason": "Conditional result was False"}
UNCHANGED = {"changed": False}


def written(path, backup=None, **extra):
    result = dict({"changed": True, "dest": path, "owner": "root", "group": "vllm", "mode": "0640"},
                  **extra)
    if backup:
        result["backup_file"] = backup
    return result


def changes(options=UNCHANGED, env=UNCHANGED, secrets=SKIPPED, removed=UNCHANGED, kept="",
            unit=UNCHANGED):
    return [{"path": OPTIONS, "result": options}, {"path": ENV, "result": env},
            {"path": SECRETS, "result": secrets, "secret": True},
            {"path": SECRETS, "result": removed, "backup": kept, "secret": True},
            {"path": UNIT, "result": unit}]


def test_a_secrets_file_this_run_created_is_removed():
    """The finding: an API key added by a run whose gate failed."""
    existing = dict(ALL)
    del existing[SECRETS]
    plan = f.vllm_rollback_plan(before(**existing), changes(secrets=written(SECRETS, mode="0600"),
                                                            removed=SKIPPED), "rel-1", False)
    assert plan["remove"] == [SECRETS]
    assert plan["restore"] == [] and plan["lost"] == []
    assert plan["roll_back"] is True


def test_a_secrets_file_this_run_removed_is_put_back_from_the_copy_kept():
    kept = SECRETS + ".rollback~"
    removed = {"changed": True, "path": SECRETS, "state": "absent"}
    plan = f.vllm_rollback_plan(before(**ALL), changes(removed=removed, kept=kept), "rel-1", False)
    assert plan["restore"] == [{"dest": SECRETS, "backup": kept, "owner": "root", "group": "root",
                                "mode": "0600", "secret": True}]
    assert plan["cleanup"] == [kept]
    assert plan["roll_back"] is True


def test_a_removal_without_a_copy_is_reported_lost_not_silently_ok():
    removed = {"changed": True, "path": SECRETS, "state": "absent"}
    plan = f.vllm_rollback_plan(before(**ALL), changes(removed=removed), "rel-1", False)
    assert plan["lost"] == [SECRETS] and plan["restore"] == []


def test_changed_files_come_back_from_their_backups_with_the_owner_and_mode_they_had():
    existing = dict(ALL, **{OPTIONS: ("root", "vllm", "0600")})
    plan = f.vllm_rollback_plan(before(**existing), changes(options=written(OPTIONS, "/etc/vllm/vllm.yaml.1.2~"),
                                                            unit=written(UNIT, "/u~")), "rel-1", False)
    assert [(r["dest"], r["backup"], r["mode"]) for r in plan["restore"]] == [
        (OPTIONS, "/etc/vllm/vllm.yaml.1.2~", "0600"), (UNIT, "/u~", "0644")]
    assert plan["cleanup"] == ["/etc/vllm/vllm.yaml.1.2~", "/u~"]
    assert plan["remove"] == []


def test_only_the_mode_changed_puts_back_the_mode():
    existing = dict(ALL, **{ENV: ("root", "root", "0644")})
    plan = f.vllm_rollback_plan(before(**existing), changes(env=written(ENV)), "rel-1", False)
    assert plan["reset"] == [{"dest": ENV, "owner": "root", "group": "root", "mode": "0644",
                              "secret": False}]


def test_a_first_install_has_nothing_to_go_back_to():
    plan = f.vllm_rollback_plan(before(), changes(options=written(OPTIONS), env=written(ENV),
                                                  unit=written(UNIT)), "", True)
    assert plan["roll_back"] is False
    assert plan["remove"] == [OPTIONS, ENV, UNIT]   # what it would remove, were there a release


def test_nothing_changed_and_no_switch_means_no_rollback():
    plan = f.vllm_rollback_plan(before(**ALL), changes(), "rel-1", False)
    assert plan == {"restore": [], "reset": [], "remove": [], "cleanup": [], "lost": [],
                    "roll_back": False}


def test_a_switched_release_alone_rolls_back():
    assert f.vllm_rollback_plan(before(**ALL), changes(), "rel-1", True)["roll_back"] is True


def test_skipped_and_unknown_entries_are_ignored():
    plan = f.vllm_rollback_plan(before(**ALL), [{"path": "/elsewhere", "result": SKIPPED},
                                                {"result": written("/x")}, {"path": OPTIONS}],
                                "rel-1", False)
    assert plan["roll_back"] is False and plan["lost"] == []


def test_existing_files():
    assert f.vllm_existing_files(before(**{ENV: ("root", "vllm", "0640")})) == [ENV]
    assert f.vllm_existing_files(before()) == []
    assert f.vllm_existing_files({}) == []


def test_both_filters_are_registered():
    filters = f.FilterModule().filters()
    assert filters["vllm_rollback_plan"] is f.vllm_rollback_plan
    assert filters["vllm_existing_files"] is f.vllm_existing_files
