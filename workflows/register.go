package workflows

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
)

// Register puts the AgentSession workflow and its activities on a worker
// under their contract names. The worker's main and the end-to-end tests
// both call it, so tests exercise the registration users run.
func Register(r worker.Registry, cfg *Config, todos *activities.Todos, models *activities.Models) {
	RegisterWorkflow(r, cfg)
	r.RegisterActivityWithOptions(todos.TodoWrite, activity.RegisterOptions{Name: contract.ActivityTodoWrite})
	r.RegisterActivityWithOptions(models.ModelTurn, activity.RegisterOptions{Name: contract.ActivityModelTurn})
	webhooks := &activities.Webhooks{Secrets: cfg.WebhookSecrets}
	r.RegisterActivityWithOptions(webhooks.DeliverNotifications, activity.RegisterOptions{Name: contract.ActivityDeliverNotifications})
	r.RegisterActivityWithOptions(webhooks.DeliverNotification, activity.RegisterOptions{Name: contract.ActivityDeliverNotification})
}

// RegisterWorkflow registers only the workflow, for a replayer.
func RegisterWorkflow(r worker.WorkflowRegistry, cfg *Config) {
	r.RegisterWorkflowWithOptions(cfg.AgentSession, workflow.RegisterOptions{Name: contract.WorkflowType})
}
