package codec

import (
	"encoding/base64"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

const (
	uiOrigin = "http://127.0.0.1:8233"
	token    = "correct-horse-battery-staple"
)

func codecServer(t *testing.T, tok string) (*httptest.Server, *Keys) {
	t.Helper()
	keys := mustKeys(t, keyLine(t, "k1"))
	srv := httptest.NewServer(Handler(ServerOptions{Keys: keys, Token: tok, Origins: []string{uiOrigin}}))
	t.Cleanup(srv.Close)
	return srv, keys
}

// The stock CLI's remote codec (converter.NewRemotePayloadCodec, as
// `temporal --codec-endpoint --codec-auth` builds it) decrypts what the
// worker encrypted, and encrypts what the worker then reads.
func TestCodecServerSpeaksTheRemoteCodecProtocol(t *testing.T) {
	srv, keys := codecServer(t, token)
	remote := func(auth string) converter.PayloadCodec {
		return converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{
			Endpoint: srv.URL,
			ModifyRequest: func(r *http.Request) error {
				if auth != "" {
					r.Header.Set("Authorization", auth)
				}
				return nil
			},
		})
	}
	enc, err := New(keys).Encode([]*commonpb.Payload{jsonPayload(`{"content":"Ship it"}`)})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := remote("Bearer " + token).Decode(enc)
	if err != nil || string(dec[0].Data) != `{"content":"Ship it"}` {
		t.Fatalf("decode: %v, %v", dec, err)
	}
	back, err := remote("Bearer " + token).Encode(dec)
	if err != nil || string(back[0].Metadata[converter.MetadataEncoding]) != Encoding {
		t.Fatalf("encode: %v, %v", back, err)
	}
	if again, err := New(keys).Decode(back); err != nil || string(again[0].Data) != `{"content":"Ship it"}` {
		t.Fatalf("the worker reads what the server encrypted: %v, %v", again, err)
	}
	for _, auth := range []string{"", "Bearer wrong-token-wrong-token", token} {
		if _, err := remote(auth).Decode(enc); err == nil || !strings.HasPrefix(err.Error(), "Unauthorized") {
			t.Errorf("authorization %q: %v, want Unauthorized", auth, err)
		}
	}
	// Without a token configured, anyone on loopback may call it.
	open, openKeys := codecServer(t, "")
	enc, _ = New(openKeys).Encode(dec)
	if _, err := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: open.URL}).Decode(enc); err != nil {
		t.Fatal(err)
	}
}

func TestCodecServerCORS(t *testing.T) {
	srv, _ := codecServer(t, token)
	pre, _ := http.NewRequest(http.MethodOptions, srv.URL+"/decode", nil)
	pre.Header.Set("Origin", uiOrigin)
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "content-type,x-namespace")
	res, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	h := res.Header
	if res.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != uiOrigin ||
		h.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "X-Namespace") {
		t.Fatalf("preflight from the UI: %d %v", res.StatusCode, h)
	}
	pre.Header.Set("Origin", "http://evil.example")
	res, err = http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("preflight from another origin: %d %v", res.StatusCode, res.Header)
	}
}

// A browser signs in once with the token and its cookie then stands for it.
func TestCodecServerLoginCookie(t *testing.T) {
	srv, keys := codecServer(t, token)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	decode := func() int {
		enc, _ := New(keys).Encode([]*commonpb.Payload{jsonPayload(`1`)})
		body := `{"payloads":[{"metadata":{"encoding":"` + b64(enc[0].Metadata["encoding"]) + `","encryption-key-id":"` + b64(enc[0].Metadata[MetadataKeyID]) + `"},"data":"` + b64(enc[0].Data) + `"}]}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/decode", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", uiOrigin)
		res, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := decode(); got != http.StatusUnauthorized {
		t.Fatalf("before signing in: %d", got)
	}
	res, err := browser.PostForm(srv.URL+"/login", url.Values{"token": {"not-the-token-at-all"}, "next": {uiOrigin}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || decode() != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", res.StatusCode)
	}
	res, err = browser.PostForm(srv.URL+"/login", url.Values{"token": {token}, "next": {uiOrigin}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != uiOrigin {
		t.Fatalf("sign in: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if got := decode(); got != http.StatusOK {
		t.Fatalf("after signing in: %d", got)
	}
	// No open redirect.
	res, err = browser.PostForm(srv.URL+"/login", url.Values{"token": {token}, "next": {"http://evil.example"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Location") != "" {
		t.Fatalf("next elsewhere: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
}

// Behind TLS (the embedded server's certificate) the login page posts to
// its own https origin, and the cookie it sets is Secure.
func TestCodecServerLoginOverTLS(t *testing.T) {
	keys := mustKeys(t, keyLine(t, "k1"))
	srv := httptest.NewTLSServer(Handler(ServerOptions{Keys: keys, Token: token, Origins: []string{"https://127.0.0.1:8233"}}))
	t.Cleanup(srv.Close)
	browser := srv.Client()
	browser.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(url.Values{"token": {token}, "next": {"https://127.0.0.1:8233"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	res, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in from the page's own https origin: %d", res.StatusCode)
	}
	if c := res.Cookies(); len(c) != 1 || !c[0].Secure || !c[0].HttpOnly {
		t.Fatalf("cookie over TLS: %+v", c)
	}
}

func TestDecodeErrorsReachTheCaller(t *testing.T) {
	srv, _ := codecServer(t, "")
	other := New(mustKeys(t, keyLine(t, "k9")))
	enc, _ := other.Encode([]*commonpb.Payload{jsonPayload(`1`)})
	_, err := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: srv.URL}).Decode(enc)
	if err == nil || !strings.Contains(err.Error(), `key "k9"`) {
		t.Fatalf("unknown key over HTTP: %v", err)
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
