package deps
import (
 _ "github.com/mark3labs/mcp-go/server"
 _ "github.com/mark3labs/mcp-go/client"
 _ "gopkg.in/yaml.v3"
 _ "github.com/google/go-github/v62/github"
 _ "github.com/andygrunwald/go-jira"
 _ "modernc.org/sqlite"
 _ "github.com/stretchr/testify/require"
 _ "github.com/coreos/go-oidc/v3/oidc"
 _ "github.com/go-jose/go-jose/v4"
)
