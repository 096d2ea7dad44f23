# A shim for offline installs into a bare venv, which has setuptools but not `wheel`:
#   pip install --no-build-isolation --no-use-pep517 ./clients/python
# Everything is declared in pyproject.toml.
from setuptools import setup

setup()
