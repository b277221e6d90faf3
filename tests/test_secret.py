"""The grading secret (autograder.grading.secret): no hidden input follows from public data.
Without AUTOGRADER_SECRET the first grading makes a random secret outside the repository, mode
0600, says where, and uses it from then on; course.toml's grading_seed serves only where the
course says so, with a warning; the platforms' autograders carry a fresh secret each.
Every secret file here is under tmp_path (AUTOGRADER_SECRET_FILE, XDG_CONFIG_HOME, HOME)."""
import dataclasses
import hashlib
import stat
import zipfile

import pytest

from autograder.course.config import CourseError, load_course
from autograder.grading import secret
from autograder.grading.grade import grading_seed
from tests.grading import COURSE, ROOT

A = "01_scalar_autodiff"


def _public_seed(student):
    """What anyone holding course.toml computes: the derivation from grading_seed."""
    digest = hashlib.sha256(f"{COURSE.grading_seed}:{student}:{A}".encode()).hexdigest()
    return int(digest[:12], 16)


@pytest.fixture
def no_secret(monkeypatch, tmp_path):
    monkeypatch.delenv(secret.ENV, raising=False)
    monkeypatch.setattr(secret, "_warned", set())
    path = tmp_path / "config" / "dp-courseware" / "secret"
    monkeypatch.setenv(secret.FILE_ENV, str(path))
    return path


def test_the_first_grading_makes_a_secret_says_where_and_keeps_using_it(no_secret, capsys):
    assert not no_secret.exists()
    first = grading_seed(COURSE, "alice", A)
    told = capsys.readouterr().err
    assert no_secret.exists() and str(no_secret) in told and "random grading secret" in told
    assert stat.S_IMODE(no_secret.stat().st_mode) == 0o600
    assert len(no_secret.read_text().strip()) == 2 * secret.BYTES
    # from then on: the same seeds, nothing said again, and none of them public
    assert grading_seed(COURSE, "alice", A) == first
    assert capsys.readouterr().err == ""
    assert first != _public_seed("alice")
    assert grading_seed(COURSE, "bob", A) != first


def test_each_machine_makes_its_own_secret(no_secret, tmp_path, monkeypatch):
    here = grading_seed(COURSE, "alice", A)
    monkeypatch.setenv(secret.FILE_ENV, str(tmp_path / "elsewhere" / "secret"))
    assert grading_seed(COURSE, "alice", A) != here


def test_a_secret_is_never_replaced_by_another_process_s(no_secret):
    assert secret.write_new(no_secret) is True
    made = no_secret.read_text()
    assert secret.write_new(no_secret) is False
    assert no_secret.read_text() == made
    assert [p.name for p in no_secret.parent.iterdir()] == ["secret"]     # no partial file left


def test_the_secret_file_is_found_in_the_config_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(secret.FILE_ENV)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert secret.location() == tmp_path / "xdg" / "dp-courseware" / "secret"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert secret.location() == tmp_path / "home" / ".config" / "dp-courseware" / "secret"


def test_a_secret_readable_by_others_is_used_with_a_warning(no_secret, capsys):
    secret.write_new(no_secret)
    no_secret.chmod(0o644)
    assert grading_seed(COURSE, "alice", A) != _public_seed("alice")
    assert f"warning: the grading secret {no_secret} is readable by others" in capsys.readouterr().err
    no_secret.chmod(0o600)
    secret._warned.clear()
    grading_seed(COURSE, "alice", A)
    assert capsys.readouterr().err == ""


def test_an_empty_secret_file_is_named_in_the_error(no_secret):
    no_secret.parent.mkdir(parents=True)
    no_secret.write_text("\n")
    with pytest.raises(CourseError, match=f"the grading secret {no_secret} is empty"):
        grading_seed(COURSE, "alice", A)


def test_AUTOGRADER_SECRET_comes_first(no_secret, monkeypatch):
    monkeypatch.setenv(secret.ENV, "s3cr3t")
    digest = hashlib.sha256(f"s3cr3t:alice:{A}".encode()).hexdigest()
    assert grading_seed(COURSE, "alice", A) == int(digest[:12], 16)
    assert not no_secret.exists()


def test_grading_seed_serves_only_by_explicit_choice_and_with_a_warning(no_secret, capsys, tmp_path):
    text = (ROOT / "course.toml").read_text()
    assert "\nsecret_from_grading_seed" not in text      # the course's own does not say so
    course_file = tmp_path / "course.toml"
    course_file.write_text(text.replace("[course]\n", "[course]\nsecret_from_grading_seed = true\n", 1))
    course = load_course(course_file)
    assert course.secret_from_grading_seed is True and COURSE.secret_from_grading_seed is False
    assert grading_seed(course, "alice", A) == _public_seed("alice")
    assert grading_seed(course, "bob", A) == _public_seed("bob")
    warned = capsys.readouterr().err
    assert warned.count(secret.PUBLIC_WARNING) == 1 and "anyone who has course.toml" in warned
    assert not no_secret.exists()
    course_file.write_text(text.replace("[course]\n", "[course]\nsecret_from_grading_seed = 1\n", 1))
    with pytest.raises(CourseError, match="secret_from_grading_seed must be true or false, not 1"):
        load_course(course_file)


def test_the_fixed_policy_needs_no_secret(no_secret):
    fixed = dataclasses.replace(COURSE, seed_policy="fixed")
    assert grading_seed(fixed, "alice", A) == COURSE.grading_seed
    assert not no_secret.exists()


def test_each_gradescope_autograder_carries_a_fresh_secret_for_root_only(tmp_path):
    from autograder.platforms import gradescope
    secrets = []
    for build in ("one", "two"):
        with zipfile.ZipFile(gradescope.build(A, tmp_path / build)) as archive:
            info = archive.getinfo("secret")
            assert stat.S_IMODE(info.external_attr >> 16) == 0o600
            secrets.append(archive.read("secret").decode().strip())
            run = archive.read("run_autograder").decode()
            assert 'export AUTOGRADER_SECRET_FILE="$root/source/secret"' in run
    assert secrets[0] != secrets[1] and all(len(s) == 2 * secret.BYTES for s in secrets)
    assert str(COURSE.grading_seed) not in secrets[0]


def test_each_prairielearn_course_folder_gets_a_fresh_secret_and_keeps_it(tmp_path):
    from autograder.platforms import prairielearn
    found = []
    for build in ("one", "two"):
        prairielearn.build(A, tmp_path / build, "dp-grader")
        grader = tmp_path / build / "serverFilesCourse" / prairielearn.FOLDER
        found.append((grader / "secret").read_text().strip())
        run = (grader / "run.sh").read_text()
        assert 'export AUTOGRADER_SECRET_FILE="$PWD/secret"' in run and "chmod 600 secret" in run
    assert found[0] != found[1] and len(found[0]) == 2 * secret.BYTES
    # written again into the same course folder (another question): the same secret, so that
    # regrading the questions built before gives the same hidden inputs
    prairielearn.build("02_matrix_autodiff", tmp_path / "two", "dp-grader")
    assert (grader / "secret").read_text().strip() == found[1]


def test_without_isolation_the_guards_hide_the_secret_file(no_secret, tmp_path):
    """--no-isolation (trusted work only): the submission runs with the grader's rights, so the
    Python guards, a hint and no defence, refuse at least a plain read of the secret file."""
    from autograder.grading.grade import Submission, grade_one
    from tests.grading import notebook_from_source, solution_source
    secret.write_new(no_secret)
    source = solution_source(A) + f"\n# %%\nprint('read:', open({str(no_secret)!r}).read())\n"
    notebook = notebook_from_source(source, tmp_path / "alice.ipynb")
    result, _ = grade_one(Submission(notebook, "alice", A), sealed=False)
    assert no_secret.read_text().strip() not in result["output"]
    assert any("PermissionError" in str(error) for error in result["cell_errors"]), result["cell_errors"]
