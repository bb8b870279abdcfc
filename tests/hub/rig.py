"""The settings every JupyterHub of the test rig shares: tests/it/common/hub.rs and
scripts/bench_status.py write a `jupyterhub_config.py` that calls `loopback(c, ...)`, then
adds their own spawner, services and roles.
"""


def loopback(c, *, workdir, public, hub, proxy_api, chp):
    """Sets `c` (the config) for a hub on loopback only: the public address, the hub's own
    and the proxy's API on the given ports; configurable-http-proxy run from `chp`; the
    database, cookie secret and proxy PID file in `workdir`. Any user may log in (dummy
    authenticator). The hub leaves servers running when it stops (the rig stops them) and
    reads activity from the proxy only once an hour, so the activity a test posts is the
    activity the culler sees."""
    c.JupyterHub.authenticator_class = "dummy"
    c.Authenticator.allow_all = True
    c.JupyterHub.bind_url = f"http://127.0.0.1:{public}"
    c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{hub}"
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{proxy_api}"
    c.ConfigurableHTTPProxy.command = [chp]
    c.ConfigurableHTTPProxy.pid_file = f"{workdir}/proxy.pid"
    c.JupyterHub.db_url = f"sqlite:///{workdir}/hub.sqlite"
    c.JupyterHub.cookie_secret_file = f"{workdir}/cookie_secret"
    c.JupyterHub.cleanup_servers = False
    c.JupyterHub.last_activity_interval = 3600
