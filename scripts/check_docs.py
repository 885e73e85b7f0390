#!/usr/bin/env python3
"""Checks the documentation (README.md and docs/*.md) against the repository it describes.

    scripts/check_docs.py [REPO_ROOT] [--python EXE]

(a) every relative Markdown link and image target exists, and a `#anchor` into a .md file names a
    heading there (GitHub's anchors);
(b) every path of this repository named in inline code or a code block exists (a glob: at least one
    match; `<name>` counts as `*`, `{a,b}` as both);
(c) README's Quick start shows the two commands scripts/run-example.sh and scripts/run-tests.sh, both
    executable, and .ci/run runs scripts/run-tests.sh and no other command;
(d) every example output the docs show is what CI checks: README's training_step output equals what
    tests/example_test.cmake expects of examples/training_step, the C call's output is part of what
    it expects of examples/mse_loss, a shown documented_calls output equals
    examples/python/documented_calls.expected, and README's "A call from Python" block, run when
    `import aclnn_cpu` works (PYTHONPATH: the build's python/), prints the output shown under it;
(e) every docs/ file that source, build and test files name exists;
(f) a README section the docs name in quotes ("README, \"Quick start\"") is still in README;
(g) every path of another repository the docs name -- a code span right after the repository's
    name, in the same clause of its paragraph, or a command's path inside a clone (ops-nn/...) -- is
    one that scripts/other-repository-paths.txt lists; that list is checked against clones of those
    repositories with --other-repo NAME=DIR (a path is found when a file or directory there ends
    with it);
(h) test counts and times of the test command ("433 tests", "302 of 302 passed", "20 min in all")
    appear in docs/test-run.md alone, which scripts/test_figures.py makes from a run.

Every problem is printed as `path:line: message`; the exit status is 1 if there is any. Python 3's
standard library only.
"""
import argparse
import fnmatch
import glob
import os
import re
import stat
import subprocess
import sys
import unicodedata

# The top-level entries of this repository: a path in code that starts with one is this repository's.
TOP_DIRS = ("src/", "include/", "golden/", "tools/", "tests/", "python/", "examples/", "bench/", "scripts/",
            "docs/", "cmake/", ".ci/")
TOP_FILES = ("CMakeLists.txt", "pyproject.toml")
# Repositories other than this one: a code span right after one of these names (in the same
# parenthesis or clause) is a path there, not here.
FOREIGN_REPO = re.compile(r"(hicann/[\w.-]+|ops-nn|ops-math|asc-devkit|mstt|msprobe|mindstudio-probe|opbase|"
                          r"ops-test-kit|pytorch|torch|numpy|CANN toolkit|the runtime's)\W*$", re.IGNORECASE)
# Build outputs and install trees named in commands: not in the repository.
OUTPUT_PREFIXES = ("build/", "_install/", "venv/", "build-")
# One name for each repository (g): hicann/<name> is <name>, msprobe lives in mstt.
REPO_ALIASES = {"msprobe": "mstt", "mindstudio-probe": "mstt", "the runtime's": "runtime", "torch": "pytorch"}
# A path in a code span: no spaces, at least one slash.
PATH_LIKE = re.compile(r"[\w.<>*{}\[\]-]+(/[\w.<>*{}\[\]-]*)+")
# In a command, a path inside a clone of another repository, by its directory's name.
CLONE_PATH = re.compile(r"(?<![\w/.-])(ops-nn|ops-math|ops-test-kit|opbase|asc-devkit|mstt)/([\w.<>*/-]+)")
# The paths in other repositories the docs name: (doc, line, repository, path), gathered by (b).
OTHER_PATHS_NAMED = []
OTHER_PATHS = os.path.join("scripts", "other-repository-paths.txt")
# The page that holds the test command's figures (h), made by scripts/test_figures.py.
FIGURES_PAGE = "docs/test-run.md"

problems = []


def problem(path, line, message):
    problems.append((path, line, message))


# ---- Markdown structure -----------------------------------------------------------------------

FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})(.*)$")


def split_markdown(text):
    """Yields ('text', line_no, line) for prose lines and ('code', start_line, info, [lines]) for
    fenced blocks (start_line: the opening fence's line, 1-based)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            fence = m.group(2)
            info = m.group(3).strip()
            body = []
            j = i + 1
            while j < len(lines):
                close = FENCE.match(lines[j])
                if close and close.group(2)[0] == fence[0] and len(close.group(2)) >= len(fence) \
                        and not close.group(3).strip():
                    break
                body.append(lines[j])
                j += 1
            yield ("code", i + 1, info, body)
            i = j + 1
            continue
        yield ("text", i + 1, lines[i])
        i += 1


INLINE_CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")


def strip_inline_code(line):
    return INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


def heading_text(raw):
    """A heading's text as GitHub renders it: code spans keep their text, links their label,
    emphasis and HTML tags go."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    t = re.sub(r"<[^>]+>", "", t)
    t = t.replace("`", "")
    t = re.sub(r"(\*\*|__|\*|_(?=\w)|(?<=\w)_)", lambda m: m.group(0) if m.group(0) == "_" else "", t)
    return t.strip()


def github_slug(text):
    out = []
    for ch in text.lower():
        cat = unicodedata.category(ch)
        if ch in (" ", "-") or cat[0] in ("L", "M", "N") or cat == "Pc":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    anchors = set()
    counts = {}
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        cache[path] = anchors
        return anchors
    for part in split_markdown(text):
        if part[0] != "text":
            continue
        m = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", part[2])
        if not m:
            continue
        slug = github_slug(heading_text(m.group(2)))
        n = counts.get(slug, 0)
        counts[slug] = n + 1
        anchors.add(slug if n == 0 else "%s-%d" % (slug, n))
    for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):
        anchors.add(m.group(1))
    cache[path] = anchors
    return anchors


# ---- (a) links ----------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]*(?:\([^)]*\)[^\s)]*)*)(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+)")
HTML_REF = re.compile(r"<(?:img|a|source)\b[^>]*?\b(?:src|href|srcset)=\"([^\"]+)\"", re.IGNORECASE)


def check_link(root, doc, line_no, target):
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
        return  # http:, https:, mailto:, ...
    path_part, _, anchor = target.partition("#")
    path_part = path_part.split("?")[0]
    doc_dir = os.path.dirname(os.path.join(root, doc))
    dest = os.path.normpath(os.path.join(doc_dir, path_part)) if path_part else os.path.join(root, doc)
    if path_part and not os.path.exists(dest):
        problem(doc, line_no, "link target %s does not exist" % target)
        return
    if anchor and dest.endswith(".md") and os.path.isfile(dest):
        if anchor not in anchors_of(dest):
            problem(doc, line_no, "link %s: no heading in %s makes the anchor #%s"
                    % (target, os.path.relpath(dest, root), anchor))


def check_links(root, doc, text):
    for part in split_markdown(text):
        if part[0] != "text":
            continue
        _, line_no, line = part
        prose = strip_inline_code(line)
        for m in LINK.finditer(prose):
            check_link(root, doc, line_no, m.group(1))
        m = REF_DEF.match(prose)
        if m:
            check_link(root, doc, line_no, m.group(1))
        for m in HTML_REF.finditer(prose):
            check_link(root, doc, line_no, m.group(1).split()[0])


# ---- (b) paths named in code --------------------------------------------------------------------

TOKEN_SPLIT = re.compile(r"[\s'\"(),;=`|]+")


def expand_braces(s):
    m = re.search(r"\{([^{}]*,[^{}]*)\}", s)
    if not m:
        return [s]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(s[:m.start()] + alt + s[m.end():]))
    return out


def path_candidates(code):
    if re.search(r"\bgit\s+(log|show|diff|blame)\b", code):
        return  # paths of the history, which need not exist now
    for token in TOKEN_SPLIT.split(code):
        token = token.strip().rstrip(".,:;")
        if token.startswith("./"):
            token = token[2:]
        if token.startswith(OUTPUT_PREFIXES):
            continue
        if token.startswith(TOP_DIRS) or token in TOP_FILES:
            if "..." in token or "$" in token:
                continue  # elided or a shell variable
            yield token


def path_exists(root, token):
    pattern = re.sub(r"<[^>]*>", "*", token)
    for p in expand_braces(pattern):
        full = os.path.join(root, p.rstrip("/"))
        if any(ch in p for ch in "*?["):
            if not glob.glob(full):
                return False
        elif not os.path.exists(full):
            return False
    return True


def other_repository(before):
    """The repository other than this one whose path a code span gives, from the text before it in
    its paragraph: "hicann/runtime (`src/...`)", "ops-nn's `loss/...`"; None for this one's."""
    clause = re.split(r"[.;:|]\s|\)\s*[,;]|--", before)[-1]
    clause = re.sub(r"\([^()]*\)", "", clause)  # closed parentheses before it are not its context
    m = FOREIGN_REPO.search(re.sub(r"(`[^`]*`|'s|[\s(,]|\bin\b|\bat\b|\bfrom\b)+$", "", clause))
    if not m:
        return None
    name = m.group(1).lower()
    name = name[len("hicann/"):] if name.startswith("hicann/") else name
    return REPO_ALIASES.get(name, name)


def paragraphs(text):
    """Each paragraph's (line number, line) pairs; code blocks as ('code', start, info, body). A table
    row and a heading are paragraphs of their own."""
    current = []
    for part in split_markdown(text):
        if part[0] == "code":
            if current:
                yield current
                current = []
            yield part
            continue
        _, line_no, line = part
        alone = line.lstrip().startswith(("|", "#"))
        if not line.strip() or alone:
            if current:
                yield current
                current = []
            if alone:
                yield [(line_no, line)]
            continue
        current.append((line_no, line))
    if current:
        yield current


def check_code_paths(root, doc, text):
    """(b), and collects (g)'s paths in other repositories into OTHER_PATHS_NAMED."""
    for para in paragraphs(text):
        if isinstance(para, tuple):
            _, start, info, body = para
            for k, line in enumerate(body):
                for token in path_candidates(line):
                    if not path_exists(root, token):
                        problem(doc, start + 1 + k, "code block names %s, which is not in the repository" % token)
                for m in CLONE_PATH.finditer(line):  # a clone's directory named as in a command
                    OTHER_PATHS_NAMED.append((doc, start + 1 + k, REPO_ALIASES.get(m.group(1), m.group(1)), m.group(2)))
            continue
        for k, (line_no, line) in enumerate(para):
            for m in INLINE_CODE.finditer(line):
                before = "\n".join(l for _, l in para[:k]) + "\n" + line[:m.start()]
                repository = other_repository(before)
                if repository:
                    if PATH_LIKE.fullmatch(m.group(2)):
                        OTHER_PATHS_NAMED.append((doc, line_no, repository, m.group(2)))
                    continue
                for token in path_candidates(m.group(2)):
                    if not path_exists(root, token):
                        problem(doc, line_no, "`%s` names %s, which is not in the repository" % (m.group(2), token))


# ---- (c) Quick start and CI ---------------------------------------------------------------------

def section(text, title):
    """The parts of the ## section titled `title` (prefix match, case-insensitive)."""
    parts = list(split_markdown(text))
    out = []
    inside = False
    for part in parts:
        if part[0] == "text":
            m = re.match(r"^(#{1,6})\s+(.*)$", part[2])
            if m:
                if inside and len(m.group(1)) <= 2:
                    break
                if m.group(2).strip().lower().startswith(title.lower()):
                    inside = True
                    continue
        if inside:
            out.append(part)
    return out


def commands_of(lines):
    cmds = []
    for line in lines:
        line = line.split("#", 1)[0].strip() if not line.strip().startswith("#!") else ""
        if line:
            cmds.append(line)
    return cmds


def check_quick_start(root, readme_text):
    parts = section(readme_text, "Quick start")
    blocks = [p for p in parts if p[0] == "code"]
    if not blocks:
        problem("README.md", 1, "no Quick start section with a command block")
        return
    _, start, _, body = blocks[0]
    cmds = commands_of(body)
    wanted = ["scripts/run-example.sh", "scripts/run-tests.sh"]
    if cmds != wanted:
        problem("README.md", start, "Quick start's commands are %s; expected exactly %s" % (cmds, wanted))
    for script in wanted:
        full = os.path.join(root, script)
        if not os.path.isfile(full):
            problem("README.md", start, "%s does not exist" % script)
        elif not os.stat(full).st_mode & stat.S_IXUSR:
            problem(script, 1, "not executable (Quick start runs it directly)")
    ci = os.path.join(root, ".ci", "run")
    if not os.path.isfile(ci):
        problem(".ci/run", 1, "does not exist")
        return
    ci_lines = open(ci, encoding="utf-8").read().split("\n")
    found = False
    for k, line in enumerate(ci_lines):
        cmd = commands_of([line])
        if not cmd:
            continue
        words = cmd[0].split()
        if words[0] == "set" or words[0] == "cd":  # shell options and the working directory: no commands
            continue
        if words[0] == "exec":
            words = words[1:]
        if words == ["scripts/run-tests.sh"]:
            found = True
        else:
            problem(".ci/run", k + 1, "runs %r, not only scripts/run-tests.sh" % cmd[0])
    if not found:
        problem(".ci/run", 1, "does not run scripts/run-tests.sh")


# ---- (d) example outputs --------------------------------------------------------------------------

CMAKE_STRING = r"\"((?:[^\"\\]|\\.)*)\""


def cmake_unescape(s, variables):
    s = re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), "\0UNDEFINED:%s\0" % m.group(1)), s)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r", ";": ";"}.get(m.group(1), m.group(1)), s)


def cmake_expectations(root):
    """{(project dir relative to the root, program): expected output} from tests/example_test.cmake's
    build_and_run calls, with the set() and string(APPEND) of the variables they pass, in file order."""
    path = os.path.join(root, "tests", "example_test.cmake")
    text = open(path, encoding="utf-8").read()
    text_nc = re.sub(r"(?m)#.*$", lambda m: m.group(0) if m.group(0).count('"') % 2 else "", text)
    variables = {}
    expected = {}
    command = re.compile(r"\b(set|string|build_and_run)\s*\(", re.IGNORECASE)
    pos = 0
    while True:
        m = command.search(text_nc, pos)
        if not m:
            break
        depth, j, quoted = 1, m.end(), False
        while j < len(text_nc) and depth:
            c = text_nc[j]
            if c == "\\" and quoted:
                j += 2
                continue
            if c == '"':
                quoted = not quoted
            elif not quoted:
                depth += {"(": 1, ")": -1}.get(c, 0)
            j += 1
        args = re.findall(CMAKE_STRING + r"|([^\s\"]+)", text_nc[m.end():j - 1])
        args = [a[0] if a[0] or not a[1] else a[1] for a in args]
        quoted_args = re.findall(r"(" + CMAKE_STRING + r"|[^\s\"]+)", text_nc[m.end():j - 1])
        is_quoted = [q[0].startswith('"') for q in quoted_args]
        name = m.group(1).lower()
        line = text_nc.count("\n", 0, m.start()) + 1
        if name == "set" and len(args) == 2 and is_quoted[1]:
            variables[args[0]] = cmake_unescape(args[1], variables)
        elif name == "string" and len(args) == 3 and args[0] == "APPEND" and is_quoted[2]:
            variables[args[1]] = variables.get(args[1], "") + cmake_unescape(args[2], variables)
        elif name == "build_and_run" and len(args) == 4 and is_quoted[3]:
            project = args[1].replace("${SOURCE_DIR}/", "")
            value = cmake_unescape(args[3], variables)
            if "\0UNDEFINED" in value:
                problem("tests/example_test.cmake", line, "cannot resolve the expected output of %s" % args[2])
            expected[(project, args[2])] = value
        pos = j
    return expected


def output_block_after(parts, predicate):
    """The first untagged code block after the first part for which predicate holds."""
    seen = False
    for part in parts:
        if not seen:
            seen = predicate(part)
            continue
        if part[0] == "code" and not part[2]:
            return part
    return None


def first_difference(a, b):
    al, bl = a.split("\n"), b.split("\n")
    for k in range(max(len(al), len(bl))):
        x = al[k] if k < len(al) else "<nothing>"
        y = bl[k] if k < len(bl) else "<nothing>"
        if x != y:
            return k, x, y
    return None


def compare_block(doc, block, want, what):
    got = "\n".join(block[3]) + "\n"
    if got != want:
        k, x, y = first_difference(got, want)
        problem(doc, block[1] + 1 + k, "%s: the doc shows %r, %s has %r" % (what[0], x, what[1], y))


def check_outputs(root, docs_text, python, pythonpath):
    try:
        expected = cmake_expectations(root)
    except OSError as e:
        problem("tests/example_test.cmake", 1, "unreadable: %s" % e)
        expected = {}
    readme = docs_text.get("README.md", "")
    parts = list(split_markdown(readme))

    # README: training_step's output.
    training = expected.get(("examples/training_step", "training_step"))
    block = output_block_after(parts, lambda p: p[0] == "text" and "examples/training_step" in p[2])
    if training is None:
        problem("tests/example_test.cmake", 1, "no build_and_run of examples/training_step's program training_step")
    elif block is None:
        problem("README.md", 1, "no output block after the mention of examples/training_step")
    else:
        compare_block("README.md", block, training,
                      ("training_step's output", "tests/example_test.cmake (examples/training_step)"))

    # README: the C call's output is among what examples/mse_loss's programs print.
    c_parts = section(readme, "A call from C")
    block = output_block_after(c_parts, lambda p: p[0] == "code" and p[2] in ("c", "cpp", "c++"))
    mse = [v for (proj, _), v in expected.items() if proj == "examples/mse_loss"]
    if block is None:
        problem("README.md", 1, "\"A call from C\": no output block after the C code")
    elif not mse:
        problem("tests/example_test.cmake", 1, "no build_and_run of examples/mse_loss")
    else:
        got = "\n".join(block[3]) + "\n"
        if not any(got in v for v in mse):
            problem("README.md", block[1] + 1, "the C call's output %r is not what tests/example_test.cmake expects "
                    "of examples/mse_loss (%r)" % (got, mse))

    # documented_calls: any untagged block that starts as its expected output does.
    exp_path = os.path.join(root, "examples", "python", "documented_calls.expected")
    if os.path.isfile(exp_path):
        want = open(exp_path, encoding="utf-8").read()
        first = want.split("\n", 1)[0]
        for doc, text in docs_text.items():
            for part in split_markdown(text):
                if part[0] == "code" and not part[2] and part[3] and part[3][0] == first:
                    compare_block(doc, part, want, ("documented_calls.py's output",
                                                    "examples/python/documented_calls.expected"))

    # README: the Python call, run.
    py_parts = section(readme, "A call from Python")
    code = next((p for p in py_parts if p[0] == "code" and p[2] == "python"), None)
    block = output_block_after(py_parts, lambda p: p is code)
    if code is None or block is None:
        problem("README.md", 1, "\"A call from Python\": no python block followed by an output block")
        return
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    probe = subprocess.run([python, "-c", "import aclnn_cpu"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
    if probe.returncode != 0:
        print("check_docs: README's Python call not run (%s cannot import aclnn_cpu)" % python)
        return
    run = subprocess.run([python, "-c", "\n".join(code[3])], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    if run.returncode != 0:
        problem("README.md", code[1] + 1, "the Python call fails: %s" % run.stderr.strip().split("\n")[-1])
        return
    compare_block("README.md", block, run.stdout, ("the Python call's output", "running it"))


# ---- (e) docs/ files named in the sources ---------------------------------------------------------

SOURCE_EXT = (".cpp", ".h", ".hpp", ".c", ".cc", ".py", ".cmake", ".sh", ".txt", ".toml", ".in", ".yml", ".yaml")
FOREIGN_SOURCE = re.compile(r"(hicann/|asc-devkit|ops-nn|ops-math|mstt|msprobe|CANN's)(?:(?!\.\s).)*$")
SKIP_DIRS = {".git", "build", "_install", "venv", "build-wheel", "__pycache__", "node_modules"}


def check_doc_references(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(("build", "."))
                       or d == ".ci"]
        for name in filenames:
            if not (name.endswith(SOURCE_EXT) or dirpath.endswith(os.sep + ".ci")):
                continue
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            try:
                lines = open(full, encoding="utf-8").read().split("\n")
            except (OSError, UnicodeDecodeError):
                continue
            for k, line in enumerate(lines):
                for m in re.finditer(r"(?<![\w/.-])docs/[\w./-]*\w", line):
                    # "(hicann/runtime: src/...; docs/...)": a file of the repository named before it.
                    context = (lines[k - 1] if k else "") + " " + line[:m.start()]
                    if FOREIGN_SOURCE.search(context):
                        continue
                    if not path_exists(root, m.group(0)):
                        problem(rel, k + 1, "names %s, which does not exist" % m.group(0))


# ---- (f) README sections named in the docs ---------------------------------------------------------

def check_readme_sections(root, doc, text):
    """`README, "Title"` or `README's "Title"` in prose: README must still have that section."""
    readme_anchors = anchors_of(os.path.join(root, "README.md"))
    for part in split_markdown(text):
        if part[0] != "text":
            continue
        for m in re.finditer(r"README(?:\.md)?(?:'s|,|:)?\s*\(?\"([^\"]+)\"", part[2]):
            if github_slug(heading_text(m.group(1))) not in readme_anchors:
                problem(doc, part[1], "names README's section \"%s\", which README no longer has" % m.group(1))


# ---- (g) paths in other repositories ------------------------------------------------------------

def read_other_paths(root):
    """{(repository, path)} that OTHER_PATHS lists: "<repository> <path>" a line, # comments."""
    listed = set()
    try:
        lines = open(os.path.join(root, OTHER_PATHS), encoding="utf-8").read().split("\n")
    except OSError as e:
        problem(OTHER_PATHS, 1, "unreadable: %s" % e)
        return listed
    for k, line in enumerate(lines):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 2:
            problem(OTHER_PATHS, k + 1, "expected \"<repository> <path>\", not %r" % line)
            continue
        listed.add((fields[0], fields[1]))
    return listed


def found_in_clone(clone, path, relpaths):
    """Whether some file or directory of the clone ends with path (<name> and * match a component)."""
    pattern = re.sub(r"<[^>]*>", "*", path.rstrip("/"))
    return any(fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, "*/" + pattern) for rel in relpaths)


def check_other_paths(root, clones):
    """Every path of another repository the docs name is one OTHER_PATHS lists, as found in a clone
    of that repository; with --other-repo NAME=DIR, every path listed for NAME is found in DIR."""
    listed = read_other_paths(root)
    for doc, line, repository, path in OTHER_PATHS_NAMED:
        if (repository, path) not in listed:
            problem(doc, line, "names %s's %s, which %s does not list as found in a clone of %s"
                    % (repository, path, OTHER_PATHS, repository))
    for name, clone in clones:
        relpaths = []
        for dirpath, dirnames, filenames in os.walk(clone):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            rel = os.path.relpath(dirpath, clone)
            for entry in dirnames + filenames:
                relpaths.append(entry if rel == "." else rel.replace(os.sep, "/") + "/" + entry)
        for repository, path in sorted(listed):
            if repository == name and not found_in_clone(clone, path, relpaths):
                problem(OTHER_PATHS, 1, "%s has no %s (the clone %s)" % (name, path, clone))


# ---- (h) one source per figure ----------------------------------------------------------------------

# A count of tests or a duration of the test command: the figures FIGURES_PAGE alone gives.
RUN_FIGURE = re.compile(r"\b\d[\d,]* tests\b|\b\d[\d,]* of \d[\d,]* passed\b|\btest command took\b|"
                        r"\b\d+ min(utes)?\b[^.]*\bin all\b")


def check_figures(docs_text):
    for doc, text in docs_text.items():
        if doc == FIGURES_PAGE:
            continue
        for part in split_markdown(text):
            if part[0] != "text":
                continue
            m = RUN_FIGURE.search(strip_inline_code(part[2]))
            if m:
                problem(doc, part[1], "\"%s\": test counts and times of the test command live in %s alone "
                        "(scripts/test_figures.py makes it from a run): link there" % (m.group(0), FIGURES_PAGE))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter that runs README's Python call (default: this one)")
    ap.add_argument("--pythonpath", default="", help="put before PYTHONPATH when running it (the build's python/)")
    ap.add_argument("--other-repo", action="append", default=[], metavar="NAME=DIR",
                    help="check the paths %s lists for repository NAME in its clone DIR (g)" % OTHER_PATHS)
    args = ap.parse_args()
    clones = []
    for spec in args.other_repo:
        name, _, clone = spec.partition("=")
        if not clone or not os.path.isdir(clone):
            ap.error("--other-repo wants NAME=DIR with DIR a clone, not %r" % spec)
        clones.append((name, clone))
    root = os.path.abspath(args.root)
    docs = ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    docs_text = {}
    for doc in docs:
        try:
            docs_text[doc] = open(os.path.join(root, doc), encoding="utf-8").read()
        except OSError as e:
            problem(doc, 1, "unreadable: %s" % e)
    for doc, text in docs_text.items():
        check_links(root, doc, text)
        check_code_paths(root, doc, text)
        check_readme_sections(root, doc, text)
    check_quick_start(root, docs_text.get("README.md", ""))
    check_outputs(root, docs_text, args.python, args.pythonpath)
    check_doc_references(root)
    check_other_paths(root, clones)
    check_figures(docs_text)
    for path, line, message in sorted(set(problems), key=lambda p: (p[0], p[1], p[2])):
        print("%s:%d: %s" % (path, line, message))
    print("check_docs: %d problem(s) in %d document(s)" % (len(set(problems)), len(docs)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
