package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/platen-print/platen/internal/platentest/poll"
)

// startS3 starts SeaweedFS (`weed mini`: master, volume, filer and S3
// gateway in one process) on loopback ports of its own, with the bucket
// and the credentials the serves use, and waits until the bucket lists.
// Its binary is PLATEN_TEST_WEED, which make test-cluster builds once.
func (c *cluster) startS3(t *testing.T) {
	t.Helper()
	weed := os.Getenv("PLATEN_TEST_WEED")
	if weed == "" {
		t.Fatal("PLATEN_TEST_WEED must name the SeaweedFS binary (make test-cluster builds it)")
	}
	// Every port explicit: weed's default gRPC ports are its HTTP ports
	// plus 10000, which another process may hold.
	p := freePorts(t, 8, 0)
	dir := filepath.Join(c.dir, "weed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c.s3 = newProc(t, c.dir, "seaweedfs", weed, c.env(), "mini", "-dir="+dir,
		"-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		fmt.Sprintf("-master.port=%d", p[0]), fmt.Sprintf("-master.port.grpc=%d", p[1]),
		fmt.Sprintf("-volume.port=%d", p[2]), fmt.Sprintf("-volume.port.grpc=%d", p[3]),
		fmt.Sprintf("-filer.port=%d", p[4]), fmt.Sprintf("-filer.port.grpc=%d", p[5]),
		fmt.Sprintf("-s3.port=%d", p[6]), fmt.Sprintf("-s3.port.grpc=%d", p[7]),
		"-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false",
		"-master.telemetry=false", "-bucket="+bucket)
	c.s3.start(t)
	c.s3URL = fmt.Sprintf("http://127.0.0.1:%d", p[6])
	c.s3Client = newS3Client(c.s3URL)
	c.waitBucket(t, 90*time.Second)
}

// waitBucket polls the S3 gateway until the bucket lists: SeaweedFS makes
// it once its master, volume server and filer are up, with no signal to
// await.
func (c *cluster) waitBucket(t *testing.T, within time.Duration) {
	t.Helper()
	var err error
	if !poll.Within(within, nil, func() bool {
		if _, err = c.s3Client.list(context.Background()); err == nil {
			return true
		}
		if c.s3.exited() {
			t.Fatalf("SeaweedFS exited before the bucket listed: %v", err)
		}
		return false
	}) {
		t.Fatalf("bucket %s not listable after %s: %v", bucket, within, err)
	}
}

// s3Client lists and reads the bucket with the test's own S3 client,
// independently of Platen's.
type s3Client struct{ api *s3.Client }

func newS3Client(endpoint string) *s3Client {
	return &s3Client{api: s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: s3AccessKey, SecretAccessKey: s3SecretKey}, nil
		}),
	})}
}

// list is every key in the bucket.
func (s *s3Client) list(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var keys []string
	pages := s3.NewListObjectsV2Paginator(s.api, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys, nil
}

// sha256Of reads an object and returns its SHA-256, hex.
func (s *s3Client) sha256Of(ctx context.Context, key string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := s.api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return "", err
	}
	defer out.Body.Close()
	h := sha256.New()
	if _, err := io.Copy(h, out.Body); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
