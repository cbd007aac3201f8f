// Command remodel migrates a PostgreSQL or MySQL/MariaDB database into one
// Amazon DynamoDB table by reverse modeling, and proves the result.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/remodel-dev/remodel/internal/app/cli"
)

func main() {
	// SIGINT or SIGTERM cancels ctx: the command stops, closes what it
	// opened and exits 130. A second signal then ends remodel at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
