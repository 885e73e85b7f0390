"""The package's long description (PyPI's page): README.md, its links into the repository made absolute.

A scikit-build-core dynamic-metadata provider (pyproject.toml, [[tool.dynamic-metadata]]). README's
links are relative, so that they work in the repository and in a clone; on PyPI's page they would
lead nowhere. Each becomes an address under project.urls.Repository at the release's tag, v<version>:
/blob/ for a page, /raw/ for an image. Links with a scheme and anchors in the page stay as they are.
Standard library only: it runs in pip's isolated build environment.
"""

import re
from pathlib import Path

# [text](target) and ![alt](target); the target up to white space or the closing parenthesis.
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")
ABSOLUTE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|//|#)")


def absolute_links(text, repository, version):
    """text with every relative Markdown link or image made an address in the repository at v<version>."""
    base = repository.rstrip("/")

    def rewrite(match):
        image, label, target = match.groups()
        if ABSOLUTE.match(target):
            return match.group(0)
        path = target[2:] if target.startswith("./") else target
        kind = "raw" if image else "blob"
        return f"{image}[{label}]({base}/{kind}/v{version}/{path})"

    return LINK.sub(rewrite, text)


def dynamic_metadata(settings, project):
    """The readme field: README.md with absolute links (settings: none)."""
    if settings:
        raise ValueError(f"pypi_readme takes no settings, not {sorted(settings)}")
    text = Path("README.md").read_text(encoding="utf-8")
    text = absolute_links(text, project["urls"]["Repository"], project["version"])
    return {"readme": {"text": text, "content-type": "text/markdown"}}
