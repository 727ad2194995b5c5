"""Stand-in for ansible-test's pip bootstrap script (get-pip.py).

ansible-test sanity creates an empty virtual environment per test and bootstraps pip in it with a
get-pip.py it downloads from ci-files.testing.ansible.com, which our machines cannot reach; it
uses a copy at ~/.ansible/test/cache/get_pip_<version>.py when there is one.
tests/integration/test_collection.py puts this file there (under its own HOME): pip from the
standard library's ensurepip, then the packages ansible-test asks for (pip==<version>) from PyPI.
Arguments are get-pip.py's: pip options and requirement specifiers.
"""
import subprocess
import sys

# get-pip.py's own switches, which pip install does not take
OWN = ("--no-setuptools", "--no-wheel")


def main(argv):
    subprocess.check_call([sys.executable, "-m", "ensurepip", "--default-pip"], stdout=subprocess.DEVNULL)
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet"] + [a for a in argv if a not in OWN])


if __name__ == "__main__":
    main(sys.argv[1:])
