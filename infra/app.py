"""`cdk deploy` entry point.

The stacks are built in the issue "`cdk deploy`: the infrastructure", on top of the AWS adapters of
"The AWS home". Until then this app refuses to synthesise rather than deploy something partial.
"""

import sys

if __name__ == "__main__":
    sys.exit("mnemo: the AWS stacks are not part of this build yet; run the embedded home with `make run`.")
