"""Starts JupyterHub for the test rig with SIGINT back at its default action.

A job started with `&` from a script inherits an ignored SIGINT, and so would the hub and
the proxy and services it starts: they would then outlive an interrupted test run. Usage:
`python launch.py -f jupyterhub_config.py`.
"""

import signal
import sys

signal.signal(signal.SIGINT, signal.SIG_DFL)

from jupyterhub.app import main  # noqa: E402

sys.exit(main())
