"""``pica vectors --emit catch2``: the generated C++ compiles (against a stand-in for
Catch2's macros written here, since Catch2 itself is not installed) and, with a
``run_case`` that echoes each case's expectation, passes; a corrupted output fails the
case it belongs to, in the mode it was corrupted in."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from gpuisa.pica import cli, vectors

STUB = r"""
#include <cstdio>
#include <vector>
struct StubTest { const char *name; void (*fn)(); };
inline std::vector<StubTest> &stub_tests() { static std::vector<StubTest> t; return t; }
inline int &stub_failures() { static int f = 0; return f; }
inline const char *&stub_current() { static const char *c = ""; return c; }
struct StubRegister {
    StubRegister(const char *n, void (*f)()) { stub_tests().push_back({n, f}); }
};
#define STUB_CAT2(a, b) a##b
#define STUB_CAT(a, b) STUB_CAT2(a, b)
#define TEST_CASE(name, tags) static void STUB_CAT(stub_fn_, __LINE__)(); \
    static StubRegister STUB_CAT(stub_reg_, __LINE__)(name, STUB_CAT(stub_fn_, __LINE__)); \
    static void STUB_CAT(stub_fn_, __LINE__)()
#define SECTION(name) if (true)
#define STUB_FAIL(x) (stub_failures()++, std::printf("FAILED %s: %s\n", stub_current(), #x))
#define CHECK(x) do { if (!(x)) STUB_FAIL(x); } while (0)
#define REQUIRE(x) do { if (!(x)) { STUB_FAIL(x); return; } } while (0)
#define INFO(x) do {} while (0)
"""

DRIVER = r"""
#include "tests.cpp"
#include <cstdlib>
#include <cstring>
namespace pica_vectors {
Result run_case(const Case &c, Mode mode) {  // echoes the expectation
    const Expected &e = c.expected[mode];
    Result r;
    r.status = e.status;
    r.pc = e.pc;
    for (const Output &o : e.outputs) r.outputs[o.index] = o.value;
    for (const auto &vertex : e.vertices) {
        std::array<Vec4, 16> row{};
        for (size_t n = 0; n < e.outputs.size(); n++) row[e.outputs[n].index] = vertex[n];
        r.vertices.push_back(row);
    }
    const char *corrupt = std::getenv("CORRUPT");
    if (corrupt && c.id == corrupt && mode == F32 && !e.outputs.empty())
        r.outputs[e.outputs[0].index][0] ^= 1u;
    return r;
}
}
int main() {
    for (const StubTest &t : stub_tests()) { stub_current() = t.name; t.fn(); }
    std::printf("tests %zu failures %d\n", stub_tests().size(), stub_failures());
    return stub_failures() != 0;
}
"""


@pytest.fixture(scope="module")
def sample(suite):
    kinds = {}
    for case in suite:
        kinds.setdefault((case.geometry, bool(case.pipeline), case.expected["f24"].status,
                          case.provenance.kind), []).append(case)
    return [case for group in kinds.values() for case in group[:2]]


def test_the_emitted_tests_compile_and_check_each_case(sample, tmp_path, monkeypatch):
    compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        pytest.skip("no C++ compiler on this machine")
    monkeypatch.setattr(vectors, "build_suite", lambda progress=None, rounding=None: sample)
    assert cli.main(["vectors", "--emit", "catch2", "-o", str(tmp_path / "tests.cpp")]) == 0
    (tmp_path / "catch2").mkdir()
    (tmp_path / "catch2" / "catch_test_macros.hpp").write_text(STUB)
    (tmp_path / "driver.cpp").write_text(DRIVER)
    binary = tmp_path / "driver"
    subprocess.run([compiler, "-std=c++17", "-O0", "-Wall", "-Werror", "-I", str(tmp_path),
                    "-o", str(binary), str(tmp_path / "driver.cpp")], check=True, timeout=300)
    done = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, f"tests {len(sample)} failures 0\n")
    target = next(c for c in sample if c.expected["f32"].status == "ok")
    monkeypatch.setenv("CORRUPT", target.id)
    done = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == f"FAILED {target.id}: same(o.value[k], " \
                                          "r.outputs[o.index][k], mode)"


def test_a_campaigns_cases_can_be_emitted(sample, tmp_path, capsys):
    import json

    from gpuisa.pica.vectors.suite_io import case_json
    path = tmp_path / "finding.jsonl"
    path.write_text(json.dumps(case_json(sample[0])) + "\n")
    assert cli.main(["vectors", "--emit", "catch2", "--cases", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("TEST_CASE(") == 1 and f'TEST_CASE("{sample[0].id}"' in out
