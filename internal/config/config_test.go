package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestEnvName(t *testing.T) {
	tests := []struct {
		flag string
		want string
	}{
		{"http-addr", "PLATEN_HTTP_ADDR"},
		{"grpc-addr", "PLATEN_GRPC_ADDR"},
		{"data-dir", "PLATEN_DATA_DIR"},
		{"database-url", "PLATEN_DATABASE_URL"},
		{"log-level", "PLATEN_LOG_LEVEL"},
		{"access-log", "PLATEN_ACCESS_LOG"},
		{"shutdown-timeout", "PLATEN_SHUTDOWN_TIMEOUT"},
		{"debug-addr", "PLATEN_DEBUG_ADDR"},
		{"x", "PLATEN_X"},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			if got := EnvName(tt.flag); got != tt.want {
				t.Errorf("EnvName(%q) = %q, want %q", tt.flag, got, tt.want)
			}
		})
	}
}

// serveFlags returns a Config with defaults and the `platen serve` flag set
// over it, parsed from args, with no PLATEN_* variable of its flags set
// unless the test sets one afterwards.
func serveFlags(t *testing.T, args ...string) (*Config, *pflag.FlagSet) {
	t.Helper()
	c := Default()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	c.ServeFlags(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		name := EnvName(f.Name)
		t.Setenv(name, "") // restores the variable when the test ends
		if err := os.Unsetenv(name); err != nil {
			t.Fatal(err)
		}
	})
	if err := fs.Parse(args); err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	return &c, fs
}

func TestApplyEnv(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(*Config) string
	}{
		{
			name: "nothing set keeps the defaults",
			check: func(c *Config) string {
				if !reflect.DeepEqual(*c, Default()) {
					return "config differs from Default()"
				}
				return ""
			},
		},
		{
			name: "env sets an unset string flag",
			env:  map[string]string{"PLATEN_HTTP_ADDR": "0.0.0.0:8081"},
			check: func(c *Config) string {
				if c.HTTPAddr != "0.0.0.0:8081" {
					return "HTTPAddr = " + c.HTTPAddr
				}
				return ""
			},
		},
		{
			name: "env sets duration and bool flags",
			env:  map[string]string{"PLATEN_SHUTDOWN_TIMEOUT": "5s", "PLATEN_ACCESS_LOG": "false", "PLATEN_DATA_DIR": "/var/lib/platen"},
			check: func(c *Config) string {
				if c.ShutdownTimeout != 5*time.Second || c.AccessLog || c.DataDir != "/var/lib/platen" {
					return "got " + c.ShutdownTimeout.String() + ", access log " + boolString(c.AccessLog) + ", data dir " + c.DataDir
				}
				return ""
			},
		},
		{
			name: "command line wins over env",
			args: []string{"--http-addr=127.0.0.1:7000", "--shutdown-timeout", "3s"},
			env:  map[string]string{"PLATEN_HTTP_ADDR": "0.0.0.0:8081", "PLATEN_SHUTDOWN_TIMEOUT": "9s"},
			check: func(c *Config) string {
				if c.HTTPAddr != "127.0.0.1:7000" || c.ShutdownTimeout != 3*time.Second {
					return "got " + c.HTTPAddr + " and " + c.ShutdownTimeout.String()
				}
				return ""
			},
		},
		{
			name: "command line given with the default value still wins",
			args: []string{"--log-level=info"},
			env:  map[string]string{"PLATEN_LOG_LEVEL": "debug"},
			check: func(c *Config) string {
				if c.LogLevel != "info" {
					return "LogLevel = " + c.LogLevel
				}
				return ""
			},
		},
		{
			name: "env fills the flags the command line left out",
			args: []string{"--grpc-addr=:9999"},
			env:  map[string]string{"PLATEN_GRPC_ADDR": ":1", "PLATEN_DEBUG_ADDR": "127.0.0.1:6060"},
			check: func(c *Config) string {
				if c.GRPCAddr != ":9999" || c.DebugAddr != "127.0.0.1:6060" {
					return "got grpc " + c.GRPCAddr + ", debug " + c.DebugAddr
				}
				return ""
			},
		},
		{
			name: "variables of no flag are ignored",
			env:  map[string]string{"PLATEN_NOT_A_FLAG": "x", "HTTP_ADDR": ":1"},
			check: func(c *Config) string {
				if !reflect.DeepEqual(*c, Default()) {
					return "config differs from Default()"
				}
				return ""
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := serveFlags(t, tt.args...)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if err := ApplyEnv(fs); err != nil {
				t.Fatalf("ApplyEnv: %v", err)
			}
			if msg := tt.check(c); msg != "" {
				t.Errorf("%s (config %+v)", msg, *c)
			}
		})
	}
}

func TestApplyEnvReportsBadValues(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		wantVars []string
	}{
		{"bad duration", map[string]string{"PLATEN_SHUTDOWN_TIMEOUT": "soon"}, []string{"PLATEN_SHUTDOWN_TIMEOUT"}},
		{"bad bool", map[string]string{"PLATEN_ACCESS_LOG": "maybe"}, []string{"PLATEN_ACCESS_LOG"}},
		{"every bad value", map[string]string{"PLATEN_SHUTDOWN_TIMEOUT": "soon", "PLATEN_ACCESS_LOG": "maybe"}, []string{"PLATEN_SHUTDOWN_TIMEOUT", "PLATEN_ACCESS_LOG"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := serveFlags(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			err := ApplyEnv(fs)
			if err == nil {
				t.Fatalf("ApplyEnv with %v = nil, want an error", tt.env)
			}
			for _, name := range tt.wantVars {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("ApplyEnv error %q does not name %s", err, name)
				}
			}
		})
	}

	t.Run("bad value hidden by the command line", func(t *testing.T) {
		c, fs := serveFlags(t, "--shutdown-timeout=2s")
		t.Setenv("PLATEN_SHUTDOWN_TIMEOUT", "soon")
		if err := ApplyEnv(fs); err != nil {
			t.Errorf("ApplyEnv = %v, want nil: the flag was given", err)
		}
		if c.ShutdownTimeout != 2*time.Second {
			t.Errorf("ShutdownTimeout = %v, want 2s", c.ShutdownTimeout)
		}
	})
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string // substring of the error; empty means valid
	}{
		{name: "defaults", mutate: func(*Config) {}},
		{name: "all interfaces", mutate: func(c *Config) { c.HTTPAddr, c.GRPCAddr = ":8080", ":9090" }},
		{name: "IPv6 addresses", mutate: func(c *Config) { c.HTTPAddr, c.GRPCAddr = "[::1]:8080", "[::]:9090" }},
		{name: "host names", mutate: func(c *Config) { c.HTTPAddr = "localhost:8080" }},
		{name: "other log levels", mutate: func(c *Config) { c.LogLevel = "debug" }},
		{name: "warn", mutate: func(c *Config) { c.LogLevel = "warn" }},
		{name: "error", mutate: func(c *Config) { c.LogLevel = "error" }},
		{name: "postgres URL", mutate: func(c *Config) { c.DatabaseURL = "postgres://u@h/db" }},
		{name: "HTTP address without port", mutate: func(c *Config) { c.HTTPAddr = "localhost" }, wantErr: "--http-addr"},
		{name: "empty HTTP address", mutate: func(c *Config) { c.HTTPAddr = "" }, wantErr: "--http-addr"},
		{name: "gRPC address with too many colons", mutate: func(c *Config) { c.GRPCAddr = "::1:9090" }, wantErr: "--grpc-addr"},
		{name: "empty gRPC address", mutate: func(c *Config) { c.GRPCAddr = "" }, wantErr: "--grpc-addr"},
		{name: "port out of range", mutate: func(c *Config) { c.HTTPAddr = "127.0.0.1:99999" }, wantErr: "--http-addr"},
		{name: "empty data dir", mutate: func(c *Config) { c.DataDir = "" }, wantErr: "--data-dir"},
		{name: "unknown log level", mutate: func(c *Config) { c.LogLevel = "verbose" }, wantErr: "--log-level"},
		{name: "empty log level", mutate: func(c *Config) { c.LogLevel = "" }, wantErr: "--log-level"},
		{name: "zero shutdown timeout", mutate: func(c *Config) { c.ShutdownTimeout = 0 }, wantErr: "--shutdown-timeout"},
		{name: "negative shutdown timeout", mutate: func(c *Config) { c.ShutdownTimeout = -time.Second }, wantErr: "--shutdown-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(&c)
			err := c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("Validate(%+v) = %v, want nil", c, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want an error naming %s", c, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Validate error %q does not name %s", err, tt.wantErr)
			}
		})
	}

	t.Run("every problem is reported", func(t *testing.T) {
		c := Config{HTTPAddr: "x", GRPCAddr: "y", LogLevel: "loud"}
		err := c.Validate()
		if err == nil {
			t.Fatal("Validate = nil, want errors")
		}
		for _, want := range []string{"--http-addr", "--grpc-addr", "--data-dir", "--log-level", "--shutdown-timeout"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Validate error %q does not name %s", err, want)
			}
		}
	})
}

func TestLevel(t *testing.T) {
	for _, level := range []string{"debug", "info", "warn", "error"} {
		t.Run(level, func(t *testing.T) {
			c := Config{LogLevel: level}
			l, err := c.Level()
			if err != nil {
				t.Fatalf("Level(%q): %v", level, err)
			}
			if !strings.EqualFold(l.String(), level) {
				t.Errorf("Level(%q) = %v", level, l)
			}
		})
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
