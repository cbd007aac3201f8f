package s3out

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestCreate: of several writers that create one key at once, in S3
// (If-None-Match) and in a local directory (a hard link), exactly one
// succeeds and its body is the object's; the others get ErrExists. Delete
// then removes it, and deleting it again is no error.
func TestCreate(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials:                credentials.NewStaticCredentialsProvider("k", "s", ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	for _, c := range []struct {
		name   string
		st     Store
		bucket string
	}{{"s3", New(client), "bkt"}, {"dir", Dir{}, t.TempDir()}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			const writers = 8
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() {
					errs[i] = c.st.Create(ctx, c.bucket, "p.claim.json", []byte(fmt.Sprint(i)), "application/json")
				})
			}
			wg.Wait()
			won := -1
			for i, err := range errs {
				switch {
				case err == nil && won < 0:
					won = i
				case err == nil:
					t.Errorf("writers %d and %d both created the object", won, i)
				case !errors.Is(err, ErrExists):
					t.Errorf("writer %d: %v, want ErrExists", i, err)
				}
			}
			got, err := c.st.Get(ctx, c.bucket, "p.claim.json")
			if err != nil || string(got) != fmt.Sprint(won) {
				t.Errorf("the object holds %q (%v), written by writer %d", got, err, won)
			}
			for range 2 {
				if err := c.st.Delete(ctx, c.bucket, "p.claim.json"); err != nil {
					t.Errorf("Delete: %v", err)
				}
			}
			if err := c.st.Create(ctx, c.bucket, "p.claim.json", []byte("again"), "application/json"); err != nil {
				t.Errorf("Create after Delete: %v", err)
			}
		})
	}
}
