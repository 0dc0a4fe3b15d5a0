"""An MCP server that is also its own OAuth 2.1 authorization server, built
from the official Python SDK's auth support (`mcp` 2.x: `MCPServer(auth=
AuthSettings(...), auth_server_provider=...)`), for gatehouse-mcp's OAuth
tests. The SDK serves the protected-resource metadata, the authorization
server metadata, dynamic client registration, /authorize and /token, checks
PKCE and the bearer token; this file only implements the provider's storage
(in memory) with an authorize step that approves at once (no login page:
it redirects straight back to the client with a code).

    python oauth_server.py PORT RECORD_FILE [TOKEN_LIFETIME_SECONDS]

* Every client it registers gets a client secret (`client_secret_post`),
  as RFC 7591 §3.2.1 lets a server assign, so the client's handling of
  secrets is exercised too.
* RECORD_FILE: after each issued credential it writes the client secrets,
  access and refresh tokens it issued (JSON), so the tests know what must
  never appear in Gatehouse's files, logs or events, and counts the grants
  and the requests refused for their bearer token.
* POST /test/revoke-access revokes every access token (refresh tokens stay:
  the client should refresh); POST /test/revoke-all revokes everything (the
  client must sign in again). Test-only routes, no auth.
"""

import json
import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse

PORT = int(sys.argv[1])
RECORD = sys.argv[2]
LIFETIME = int(sys.argv[3]) if len(sys.argv) > 3 else 3600
BASE = f"http://127.0.0.1:{PORT}"


class AutoApproveProvider:
    """OAuthAuthorizationServerProvider keeping everything in memory."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.record = {
            "client_secrets": [],
            "access_tokens": [],
            "refresh_tokens": [],
            "grants": {"authorization_code": 0, "refresh_token": 0},
            # Requests whose bearer token this server refused (each one a 401).
            "rejected_requests": 0,
        }
        self.save()

    def save(self) -> None:
        with open(RECORD, "w") as f:
            json.dump(self.record, f)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        # A confidential client: this server assigns a secret and the method.
        client_info.client_secret = secrets.token_hex(24)
        client_info.client_secret_expires_at = 0
        client_info.token_endpoint_auth_method = "client_secret_post"
        self.clients[client_info.client_id] = client_info
        self.record["client_secrets"].append(client_info.client_secret)
        self.save()

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str):
        return self.codes.get(authorization_code)

    def issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = "at-" + secrets.token_urlsafe(32)
        refresh = "rt-" + secrets.token_urlsafe(32)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + LIFETIME,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        self.record["access_tokens"].append(access)
        self.record["refresh_tokens"].append(refresh)
        self.save()
        return OAuthToken(
            access_token=access,
            expires_in=LIFETIME,
            scope=" ".join(scopes) if scopes else None,
            refresh_token=refresh,
        )

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.record["grants"]["authorization_code"] += 1
        return self.issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str):
        token = self.refresh.get(refresh_token)
        if token is not None and token.client_id == client.client_id:
            return token
        return None

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        # Rotation: the old refresh token is spent.
        self.refresh.pop(refresh_token.token, None)
        self.record["grants"]["refresh_token"] += 1
        return self.issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None:
            self.record["rejected_requests"] += 1
            self.save()
        return found

    async def revoke_token(self, token) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


provider = AutoApproveProvider()

server = MCPServer(
    "gatehouse-oauth-test",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=f"{BASE}/mcp",
        validate_token_resource=False,
        client_registration_options=ClientRegistrationOptions(enabled=True),
    ),
)


@server.tool()
def whoami() -> str:
    """Says that the caller is signed in."""
    return "signed in"


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.custom_route("/test/revoke-access", methods=["POST"])
async def revoke_access(request: Request) -> JSONResponse:
    provider.access.clear()
    return JSONResponse({"revoked": "access"})


@server.custom_route("/test/revoke-all", methods=["POST"])
async def revoke_all(request: Request) -> JSONResponse:
    provider.access.clear()
    provider.refresh.clear()
    return JSONResponse({"revoked": "all"})


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=PORT, log_level="warning")
