package deps

import (
	_ "github.com/andygrunwald/go-jira"
	_ "github.com/coreos/go-oidc/v3/oidc"
	_ "github.com/go-jose/go-jose/v4"
	_ "github.com/google/go-github/v62/github"
	_ "github.com/mark3labs/mcp-go/client"
	_ "github.com/mark3labs/mcp-go/server"
	_ "github.com/stretchr/testify/require"
	_ "gopkg.in/yaml.v3"
	_ "modernc.org/sqlite"
)
