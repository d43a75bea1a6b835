"""The app's folders that live at the repository's top (migrations, translations)
go into the built package as ``app/<folder>``: an installed wheel is the whole app. (A clone
reads them where they are: ``app.config.resource_folder``.) Everything else is in
pyproject.toml."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

FOLDERS = ("migrations", "translations")


class BuildWithFolders(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the clone's own folders
        for name in FOLDERS:
            target = Path(self.build_lib) / "app" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(name, target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.pot"))


setup(cmdclass={"build_py": BuildWithFolders})
