"""One toy of each extension point, each a module with its declaration, for the extension
contract test (tests/kit/test_extension_contract.py), which registers each with one line."""
