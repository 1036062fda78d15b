// Command fakegithub serves the project's fake GitHub (the REST shapes the
// providers speak, under /api/v3/) on a loopback port, for trying the
// poller by hand without a GitHub account. It prints what to put in the
// config, and a loopback control endpoint posts a comment as any login,
// so you can play the authorized human:
//
//	go run ./integrations/providertest/fakegithub
//	curl -d '{"author":"alice","body":"the-loop start"}' http://127.0.0.1:PORT/comment/octo/widgets/1
//
// It is a test fixture: it keeps everything in memory and accepts its one
// printed token.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/the-loop/the-loop/integrations"
	"github.com/the-loop/the-loop/integrations/providertest"
)

func main() {
	addr := flag.String("control", "127.0.0.1:0", "loopback address of the control endpoint")
	flag.Parse()
	if err := run(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "fakegithub:", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-control %s: the control endpoint listens on a loopback address only", addr)
	}
	gh := providertest.StartGitHub()
	defer gh.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /comment/{owner}/{repo}/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		var in struct{ Author, Body string }
		if err != nil || json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in) != nil || in.Author == "" || in.Body == "" {
			http.Error(w, `POST {"author":"LOGIN","body":"TEXT"} to /comment/OWNER/REPO/N`, http.StatusBadRequest)
			return
		}
		c := gh.AddComment(integrations.Ref{System: "github", Owner: r.PathValue("owner"), Repo: r.PathValue("repo"), Number: n}, in.Author, "OWNER", in.Body)
		_ = json.NewEncoder(w).Encode(map[string]any{"id": c.ID})
	})
	go func() { _ = http.Serve(ln, mux) }()
	fmt.Printf("integrations.github.baseUrl: %s\nGITHUB_TOKEN=%s\nrouting.selfLogins: [%s]\nrepository: %s (issue #1 is open)\ncontrol: http://%s/comment/OWNER/REPO/N\n",
		gh.URL(), gh.Token(), gh.BotLogin(), providertest.GitHubRepo, ln.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	return nil
}
