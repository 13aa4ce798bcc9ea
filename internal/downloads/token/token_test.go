package token

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	testKey  = bytes.Repeat([]byte("k"), MinKeySize)
	otherKey = bytes.Repeat([]byte("o"), MinKeySize)
	now      = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	claims   = Claims{
		Scope:   "b",
		Order:   "PLT-7K3Q9",
		Subject: "0b7e5f7e-8a51-4a4e-9d8f-1c2b3a4d5e6f/2",
		Expires: now.Add(DefaultTTL),
	}
)

func signer(t testing.TB, key []byte) *Signer {
	t.Helper()
	s, err := NewSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewSignerRefusesShortKeys(t *testing.T) {
	if _, err := NewSigner(make([]byte, MinKeySize-1)); err == nil {
		t.Fatal("a 31-byte key was accepted")
	}
}

func TestRoundTrip(t *testing.T) {
	s := signer(t, testKey)
	cases := map[string]Claims{
		"family b print": claims,
		"family a item":  {Scope: "a", Order: "6f1c0f8e-2b1d-4f7a-9c3e-5d4b3a291807", Subject: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", Expires: now.Add(time.Second)},
		"empty strings":  {Expires: now.Add(time.Hour)},
		"unicode":        {Scope: "b", Order: "Bestellung-ß", Subject: "印刷/1", Expires: now.Add(time.Minute)},
		"sub-second":     {Scope: "a", Order: "o", Subject: "s", Expires: now.Add(90*time.Minute + 700*time.Millisecond)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			token := s.Sign(c)
			if strings.ContainsAny(token, "+/=") {
				t.Errorf("token %q is not base64url without padding", token)
			}
			got, err := s.Verify(token, now)
			if err != nil {
				t.Fatal(err)
			}
			want := c
			want.Expires = c.Expires.Truncate(time.Second)
			if !got.Expires.Equal(want.Expires) || got.Scope != want.Scope || got.Order != want.Order || got.Subject != want.Subject {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if err := s.VerifyFor(token, c.Scope, c.Order, c.Subject, now); err != nil {
				t.Errorf("VerifyFor: %v", err)
			}
		})
	}
}

func TestTokenIsCompact(t *testing.T) {
	if n := len(signer(t, testKey).Sign(claims)); n > 160 {
		t.Errorf("a family B token has %d characters", n)
	}
}

func TestTamperingIsRefused(t *testing.T) {
	s := signer(t, testKey)
	token := s.Sign(claims)
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) string {
		b := bytes.Clone(raw)
		b[i] ^= 0x01
		return base64.RawURLEncoding.EncodeToString(b)
	}
	forged := claims
	forged.Order = "PLT-OTHER"
	cases := []struct {
		name  string
		token string
		want  error
	}{
		{"payload byte", flip(len(raw) / 3), ErrBadSignature},
		{"expiry byte", flip(1), ErrBadSignature},
		{"signature byte", flip(len(raw) - 1), ErrBadSignature},
		{"version byte", flip(0), ErrUnknownVersion},
		{"truncated by one byte", base64.RawURLEncoding.EncodeToString(raw[:len(raw)-1]), ErrBadSignature},
		{"truncated to the version", token[:2], ErrMalformed},
		{"cut mid-character", token[:9], ErrMalformed}, // 4n+1 characters never decode
		{"signature dropped", base64.RawURLEncoding.EncodeToString(raw[:len(raw)-32]), ErrBadSignature},
		{"other key", signer(t, otherKey).Sign(claims), ErrBadSignature},
		{"claims re-signed elsewhere", signer(t, otherKey).Sign(forged), ErrBadSignature},
		{"padding added", token + "=", ErrMalformed},
		{"standard base64", strings.NewReplacer("-", "+", "_", "/").Replace(token) + "+", ErrMalformed},
		{"empty", "", ErrMalformed},
		{"huge", strings.Repeat("A", maxTokenLen+1), ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := s.Verify(tc.token, now)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if c != (Claims{}) {
				t.Errorf("claims %+v returned with an error", c)
			}
			if err := s.VerifyFor(tc.token, claims.Scope, claims.Order, claims.Subject, now); !errors.Is(err, tc.want) {
				t.Errorf("VerifyFor: %v", err)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	s := signer(t, testKey)
	token := s.Sign(claims)
	if _, err := s.Verify(token, claims.Expires.Add(-time.Second)); err != nil {
		t.Fatalf("one second before expiry: %v", err)
	}
	for _, at := range []time.Time{claims.Expires, claims.Expires.Add(time.Hour)} {
		_, err := s.Verify(token, at)
		if !errors.Is(err, ErrExpired) {
			t.Fatalf("at %v: %v", at, err)
		}
		if want := "expired at 2026-03-08T12:00:00Z"; !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

func TestVerifyForAnotherTarget(t *testing.T) {
	s := signer(t, testKey)
	token := s.Sign(claims)
	cases := map[string][3]string{
		"order":   {claims.Scope, "PLT-OTHER", claims.Subject},
		"subject": {claims.Scope, claims.Order, "0b7e5f7e-8a51-4a4e-9d8f-1c2b3a4d5e6f/1"},
		"scope":   {"a", claims.Order, claims.Subject},
	}
	for name, target := range cases {
		t.Run(name, func(t *testing.T) {
			err := s.VerifyFor(token, target[0], target[1], target[2], now)
			if !errors.Is(err, ErrOtherOrder) || err.Error() != "the token is for another order" {
				t.Errorf("error %v", err)
			}
		})
	}
}

// FuzzVerify checks that no input panics Verify and that nothing but a token
// this service signed verifies: the fuzzer does not hold the key.
func FuzzVerify(f *testing.F) {
	s := signer(f, testKey)
	valid := s.Sign(claims)
	f.Add(valid[:len(valid)-1] + "B")
	f.Add(valid[:len(valid)/2])
	f.Add(signer(f, otherKey).Sign(claims))
	f.Add("")
	f.Add("AQ")
	f.Add("Ag" + valid[2:])
	f.Add(base64.RawURLEncoding.EncodeToString(append([]byte{1, 0xff, 0xff, 0xff}, make([]byte, 32)...)))
	f.Add("!!not base64!!")
	f.Fuzz(func(t *testing.T, token string) {
		if token == valid {
			t.Skip("the one token that is meant to verify")
		}
		c, err := s.Verify(token, now)
		if err == nil {
			t.Fatalf("%q verified as %+v", token, c)
		}
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrBadSignature) && !errors.Is(err, ErrUnknownVersion) {
			t.Fatalf("%q: unexpected error %v", token, err)
		}
	})
}

// TestRotation: after a rotation, tokens signed with the old key still
// verify and new ones are signed with the new key; a second rotation drops
// the oldest key.
func TestRotation(t *testing.T) {
	a, b, c := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), bytes.Repeat([]byte{3}, 32)
	s, err := NewSigner(a)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	claims := Claims{Scope: "a", Order: "o", Subject: "i", Expires: now.Add(time.Hour)}
	old := s.Sign(claims)
	if err := s.SetKeys(b, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(old, now); err != nil {
		t.Errorf("a token of the replaced key: %v", err)
	}
	fresh := s.Sign(claims)
	onlyB, _ := NewSigner(b)
	if fresh == old {
		t.Error("still signing with the replaced key")
	}
	if _, err := onlyB.Verify(fresh, now); err != nil {
		t.Errorf("a new token does not verify with the new key alone: %v", err)
	}
	if err := s.SetKeys(c, b); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(old, now); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a token of a key rotated out twice: %v, want ErrBadSignature", err)
	}
	if _, err := s.Verify(fresh, now); err != nil {
		t.Errorf("a token of the previous key: %v", err)
	}
	if err := s.SetKeys(c, []byte("short")); err == nil {
		t.Error("a short previous key accepted")
	}
	if _, err := s.Verify(fresh, now); err != nil {
		t.Errorf("a refused SetKeys changed the keys: %v", err)
	}
}
