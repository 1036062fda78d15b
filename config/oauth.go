package config

// validate refuses a half-configured browser sign-in: the web view's
// client needs the issuer and the resource URL (its tokens are checked as
// the MCP endpoint checks them), and a client secret needs its client.
func (o OAuth) validate() error {
	if n := o.WebClientSecretEnv; n != "" {
		if !IsEnvName(n) {
			return badKey("mcp.http.oauth.webClientSecretEnv", "%s", notAnEnvName)
		}
		if o.WebClientID == "" {
			return badKey("mcp.http.oauth.webClientSecretEnv", "is set but mcp.http.oauth.webClientId is not; set the client id the authorization server gave the web view, or remove webClientSecretEnv")
		}
	}
	if o.WebClientID == "" {
		return nil
	}
	if o.Issuer == "" {
		return badKey("mcp.http.oauth.webClientId", "is set but mcp.http.oauth.issuer is not; browser sign-in goes through the authorization server that issuer names (set it and mcp.http.oauth.resourceUrl)")
	}
	if o.ResourceURL == "" {
		return badKey("mcp.http.oauth.webClientId", "is set but mcp.http.oauth.resourceUrl is not; the web view's redirect URI and the tokens' audience are read from it (set it to this server's public MCP URL, e.g. https://loop.example.com/mcp)")
	}
	return nil
}
