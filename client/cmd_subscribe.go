package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/workflows"
)

func (a *app) subscribeCommand() *cobra.Command {
	var sub notify.Subscriber
	var events []string
	cmd := &cobra.Command{
		Use:   "subscribe SESSION --url URL --secret NAME",
		Short: "Have the session POST its changes to a webhook (update subscribe)",
		Long: `Add a webhook to the session: each accepted change of the plan that matches
--events is POSTed to --url as JSON, signed with HMAC-SHA256 under the secret
--secret names (the X-Agent-Todos-Signature header), and retried until the
receiver answers 2xx or --give-up-after passes. The secret itself stays in the
worker's --webhook-secrets file: the session only holds its name.

Events (default changed, every change):
  ` + strings.Join(kindNames(), ", ") + `
--id tells a session's webhooks apart (default: the URL's host); subscribing
again with an existing --id replaces that webhook.`,
		Example: `  client subscribe demo --url http://127.0.0.1:8399/hook --secret demo
  client subscribe demo --url https://hooks.example.com/todos --secret team --id team \
    --events item_completed,plan_finished --give-up-after 24h`,
		Args: positional(false, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sub.URL == "" {
				return usageErrorf("missing --url URL, where the session POSTs its changes")
			}
			if sub.SecretName == "" {
				return usageErrorf("missing --secret NAME, a name in the worker's --webhook-secrets file")
			}
			sub.Events = kindsOf(events)
			return a.subscribe(cmd.Context(), args[0], sub, cmd.Flags().Changed("id"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&sub.URL, "url", "", "POST each matching change to `URL` (http or https)")
	f.StringVar(&sub.SecretName, "secret", "", "sign with the secret called `NAME` in the worker's --webhook-secrets file")
	f.StringVar(&sub.ID, "id", "", "the webhook's `ID` in this session (default: the URL's host)")
	f.StringSliceVar(&events, "events", nil, "send only changes of these `KINDS` (comma-separated or repeated; default changed)")
	f.StringVar(&sub.GiveUpAfter, "give-up-after", "", "retry each notification for at most `DURATION` after its change (1s to 72h; default 1h)")
	cmd.RegisterFlagCompletionFunc("events", cobra.FixedCompletions(kindNames(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// subscribe sends the subscribe update. An ID the person chose replaces
// that webhook, as the contract says; one the client made up must not
// silently replace another URL of the same host, so it is checked first
// (a check, not a lock: two people subscribing at once can still meet).
func (a *app) subscribe(ctx context.Context, id string, sub notify.Subscriber, idGiven bool) error {
	if !idGiven {
		sub.ID = defaultSubscriberID(sub.URL)
		_, subs, err := a.querySubscribers(ctx, id)
		if err != nil {
			return err
		}
		for _, s := range subs {
			if s.ID == sub.ID && s.URL != sub.URL {
				return &exitError{code: 1, msg: fmt.Sprintf("client: session %q already has a webhook %q (%s): give --id to add another, or --id %s to replace it", id, s.ID, oneLine(s.URL), s.ID)}
			}
		}
	}
	raw, err := payloads.Marshal(sub)
	if err != nil {
		return err
	}
	data, subs, err := a.updateSubscribers(ctx, id, contract.UpdateSubscribe, raw)
	if err != nil {
		return err
	}
	return a.printSubscribers(subscribedText(id, sub), data, subs)
}

// updateSubscribers sends subscribe or unsubscribe and returns the
// subscribers the session answered with.
func (a *app) updateSubscribers(ctx context.Context, id, name string, raw []byte) ([]byte, []workflows.SubscriberStatus, error) {
	c, err := a.connect()
	if err != nil {
		return nil, nil, err
	}
	data, err := a.sendUpdate(ctx, c, id, name, newUpdateID(), raw)
	if err != nil {
		if rej, ok := rejected(err); ok {
			return nil, nil, rej
		}
		return nil, nil, a.sessionError(id, err)
	}
	var subs []workflows.SubscriberStatus
	if err := json.Unmarshal(data, &subs); err != nil {
		return nil, nil, fmt.Errorf("%s returned unexpected JSON: %w", name, err)
	}
	return data, subs, nil
}

// subscribedText says in a sentence what the session will do.
func subscribedText(id string, sub notify.Subscriber) string {
	what := "every change"
	if len(sub.Events) > 0 {
		names := make([]string, len(sub.Events))
		for i, k := range sub.Events {
			names[i] = string(k)
		}
		what = "changes that are " + strings.Join(names, " or ")
	}
	return fmt.Sprintf("Subscribed %s: session %s POSTs %s to %s, signed with %q.\n", sub.ID, id, what, oneLine(sub.URL), sub.SecretName)
}
