"""Options shared by the test suite."""


def pytest_addoption(parser):
    parser.addoption("--fuzz-long", action="store_true", default=False,
                     help="run the scene-loader fuzz tests with thousands of cases instead of a few hundred")
