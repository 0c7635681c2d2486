package embedded

import (
	"context"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/server/common/api"
	"go.temporal.io/server/common/authorization"

	"github.com/durabletodos/agenttodos/apikeys"
)

// keyAuthorizer is the server's Authorizer under Options.APIKeys. It reads
// each API's scope and access from the server's own table (the one the
// default authorizer uses) and decides by the caller's role bits:
//
//   - any key may call cluster-wide read-only APIs (namespaces, cluster and
//     system info: what the UI and CLI ask first);
//   - in the namespace, a reader may call read-only APIs (queries,
//     descriptions, histories, lists); a writer also the other write APIs
//     (start, update, signal, cancel, terminate, schedules, batches); a
//     worker also the APIs that process tasks (workerAPIs); an admin
//     everything, administration included.
//
// Unlike the default authorizer, a writer is not a worker: a person's key
// cannot answer the session's workflow and activity tasks, so it changes a
// plan only through the validated update and signal. And a worker's key
// cannot steer sessions.
//
// The server's own callers (its worker service and set-up, through the
// internal frontend) carry the internal claim mapper's system admin claims
// and pass. Health checks pass without any claims, as in the default
// authorizer.
//
// A denial is a PermissionDenied error whose message says what the key may
// do (the frontend runs with frontend.exposeAuthorizerErrors so the message
// reaches the caller) and whose reason is a stable code.
type keyAuthorizer struct{}

// workerAPIs are the write APIs that process tasks: what a worker does and
// nobody else should.
var workerAPIs = map[string]bool{
	"PollWorkflowTaskQueue":            true,
	"RespondWorkflowTaskCompleted":     true,
	"RespondWorkflowTaskFailed":        true,
	"RespondQueryTaskCompleted":        true,
	"ResetStickyTaskQueue":             true,
	"PollActivityTaskQueue":            true,
	"RecordActivityTaskHeartbeat":      true,
	"RecordActivityTaskHeartbeatById":  true,
	"RespondActivityTaskCompleted":     true,
	"RespondActivityTaskCompletedById": true,
	"RespondActivityTaskFailed":        true,
	"RespondActivityTaskFailedById":    true,
	"RespondActivityTaskCanceled":      true,
	"RespondActivityTaskCanceledById":  true,
	"PollNexusTaskQueue":               true,
	"RespondNexusTaskCompleted":        true,
	"RespondNexusTaskFailed":           true,
	"ShutdownWorker":                   true,
	"RecordWorkerHeartbeat":            true,
}

// Reasons of denials, stable for programs (PermissionDenied.Reason).
const (
	reasonRoleDenied     = "RoleDenied"
	reasonOtherNamespace = "OtherNamespace"
)

func (keyAuthorizer) Authorize(_ context.Context, c *authorization.Claims, t *authorization.CallTarget) (authorization.Result, error) {
	allow := authorization.Result{Decision: authorization.DecisionAllow}
	if authorization.IsHealthCheckAPI(t.APIName) {
		return allow, nil
	}
	if c != nil && c.System&authorization.RoleAdmin != 0 {
		return allow, nil
	}
	if c == nil || c.Subject == "" {
		return authorization.Result{}, keyError(c)
	}
	allow.Principal = principal(c)
	md := api.GetMethodMetadata(t.APIName)
	method := api.MethodName(t.APIName)
	switch md.Scope {
	case api.ScopeCluster:
		if md.Access == api.AccessReadOnly {
			return allow, nil
		}
	case api.ScopeNamespace:
		has, ok := c.Namespaces[t.Namespace]
		if !ok {
			return authorization.Result{}, serviceerror.NewPermissionDenied(
				fmt.Sprintf("API key %q gives no access to namespace %q", c.Subject, t.Namespace), reasonOtherNamespace)
		}
		if has&required(method, md.Access) != 0 {
			return allow, nil
		}
	}
	return authorization.Result{}, serviceerror.NewPermissionDenied(
		fmt.Sprintf("API key %q is %s %s key, and %s %s %s; %s is not allowed", c.Subject, article(role(c)), role(c), article(role(c)), role(c), mayDo(role(c)), method),
		reasonRoleDenied)
}

// required is the set of role bits any one of which allows a call.
func required(method string, access api.Access) authorization.Role {
	switch {
	case workerAPIs[method]:
		return authorization.RoleWorker | authorization.RoleAdmin
	case access == api.AccessReadOnly:
		return authorization.RoleReader | authorization.RoleWriter | authorization.RoleWorker | authorization.RoleAdmin
	case access == api.AccessWrite:
		return authorization.RoleWriter | authorization.RoleAdmin
	}
	return authorization.RoleAdmin
}

// keyError says why a request has no role at all.
func keyError(c *authorization.Claims) error {
	problem := problemNoKey
	if c != nil {
		if p, ok := c.Extensions.(keyProblem); ok {
			problem = p
		}
	}
	var msg string
	switch problem {
	case problemUnknownKey:
		msg = "unknown API key"
	case problemBadHeader:
		msg = `the Authorization header must be "Bearer <API key>"`
	default:
		msg = "this server needs an API key: send it as Authorization: Bearer <key> (TEMPORAL_API_KEY, or --api-key)"
	}
	return serviceerror.NewPermissionDenied(msg, string(problem))
}

func role(c *authorization.Claims) apikeys.Role {
	if k, ok := c.Extensions.(apikeys.Key); ok {
		return k.Role
	}
	return ""
}

func article(r apikeys.Role) string {
	if r == apikeys.Admin {
		return "an"
	}
	return "a"
}

// mayDo is what the role's denial message says it may do.
func mayDo(r apikeys.Role) string {
	switch r {
	case apikeys.Reader:
		return "may only read (queries, descriptions, histories, lists)"
	case apikeys.Writer:
		return "may read, start, update, signal, cancel and terminate, but not process tasks as a worker"
	case apikeys.Worker:
		return "may read and process tasks, but not start, update or signal"
	case apikeys.Admin:
		return "may do anything in its namespace, but not administer the cluster"
	}
	return "may do nothing"
}

func principal(c *authorization.Claims) *commonpb.Principal {
	return &commonpb.Principal{Type: c.AuthType, Name: c.Subject}
}
