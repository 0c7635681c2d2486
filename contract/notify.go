package contract

// Sessions notify subscribed webhooks of accepted changes; README's "Get
// notified" and "Contract" document the payloads.
const (
	// UpdateSubscribe takes a notify.Subscriber and returns the session's
	// subscribers; the same id again replaces that subscriber.
	UpdateSubscribe = "subscribe"
	// UpdateUnsubscribe takes {"id":"..."} and returns the subscribers left;
	// that subscriber's pending notifications are dropped.
	UpdateUnsubscribe = "unsubscribe"
	// QuerySubscribers returns the subscribers with what each has pending.
	QuerySubscribers = "subscribers"

	ActivityDeliverNotification = "DeliverNotification"
)
