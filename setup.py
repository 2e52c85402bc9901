"""Build step of the wheel: the gettext catalogs, compiled, go inside the package.

The translations live in ``locales/<lang>/LC_MESSAGES/shbot.po`` at the top of the
repository (where translators and ``pybabel`` expect them). An installed bot cannot see
that folder, so ``build_py`` compiles every ``.po`` with Babel into
``shbot/locales/<lang>/LC_MESSAGES/shbot.mo`` in the build directory, which the wheel then
contains; ``shbot.i18n`` finds them with ``importlib.resources``. Nothing is written into
the source tree, and ``.mo`` files are never committed. An editable install skips the
step: it reads the checkout's ``locales/`` directly. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import io
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
LOCALES = ROOT / "locales"
DOMAIN = "shbot"


def compile_catalog(po: Path) -> bytes:
    """The ``.mo`` bytes of ``po``; fuzzy entries left out, as at run time."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, abort_invalid=True)
    if not any(message.id and message.string for message in catalog):
        raise SystemExit(f"error: {po} has no translated message")
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    return buf.getvalue()


class BuildWithCatalogs(build_py):
    """``build_py`` that also writes the compiled catalogs into the package."""

    def catalogs(self) -> list[tuple[Path, str]]:
        """(source .po, target .mo in the build directory) for every language."""
        sources = sorted(LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
        if not sources:
            raise SystemExit(
                f"error: no catalogs under {LOCALES}: the wheel would only speak English"
            )
        target = Path(self.build_lib, DOMAIN, "locales")
        return [(po, str(target / po.relative_to(LOCALES).with_suffix(".mo"))) for po in sources]

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # the checkout's locales/ is read in place
            return
        for po, target in self.catalogs():
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            Path(target).write_bytes(compile_catalog(po))
            self.announce(f"compiled {po.relative_to(ROOT)}", level=2)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            outputs += [target for _, target in self.catalogs()]
        return outputs


setup(cmdclass={"build_py": BuildWithCatalogs})
