package codec

import (
	"html/template"
	"net/http"
	"slices"
	"time"
)

// A browser cannot be told to send a bearer token of ours with the Temporal
// UI's codec requests, but with the UI's includeCredentials it sends the
// cookies of the codec server's host. So a person signs in once per browser
// session here, with the token, and the cookie stands for it; the UI's page
// and the codec server are on one host (ports aside), so even a SameSite=
// Strict cookie goes along.
const (
	loginPath  = "/login"
	cookieName = "agent-todos-codec"
	// loginFailureDelay slows down guessing.
	loginFailureDelay = time.Second
)

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent todos: codec server</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>Agent todos: codec server</h1>
{{if .Message}}<p><strong>{{.Message}}</strong></p>{{end}}
{{if .Form}}<p>Enter the codec token (the worker's <code>--codec-token-file</code> or <code>$AGENT_CODEC_TOKEN</code>)
so that this browser may decrypt plans in the Temporal UI until it is closed.</p>
<form method="post" action="{{.Path}}">
<input type="password" name="token" autocomplete="current-password" size="50" autofocus>
<input type="hidden" name="next" value="{{.Next}}">
<button type="submit">Sign in</button>
</form>{{end}}
{{if .Next}}<p><a href="{{.Next}}">Back to the Temporal UI</a></p>{{end}}
</body></html>
`))

type loginView struct {
	Message, Path, Next string
	Form                bool
}

func (s *server) login(w http.ResponseWriter, r *http.Request) {
	v := loginView{Path: loginPath, Form: s.token != nil}
	if len(s.origins) > 0 {
		v.Next = s.origins[0]
	}
	if s.token == nil {
		v.Message = "This codec server needs no token."
		s.render(w, http.StatusOK, v)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.render(w, http.StatusOK, v)
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		if !s.matches(r.PostForm.Get("token")) {
			time.Sleep(loginFailureDelay)
			v.Message = "Wrong token."
			s.render(w, http.StatusUnauthorized, v)
			return
		}
		http.SetCookie(w, &http.Cookie{
			Name: cookieName, Value: r.PostForm.Get("token"), Path: "/",
			HttpOnly: true, SameSite: http.SameSiteStrictMode,
			// Over TLS the cookie must never travel in clear.
			Secure: r.TLS != nil,
		})
		// Only back to a page of ours: no open redirect.
		if next := r.PostForm.Get("next"); slices.Contains(s.origins, next) {
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		v.Message, v.Form = "Signed in.", false
		s.render(w, http.StatusOK, v)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (s *server) render(w http.ResponseWriter, status int, v loginView) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = loginPage.Execute(w, v)
}
