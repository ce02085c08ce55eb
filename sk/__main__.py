import sys

from sk.cli import main

sys.exit(main())
