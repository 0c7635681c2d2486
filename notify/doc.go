// Package notify is what a session tells the systems that subscribe to it:
// who subscribes (Subscriber), what an accepted change is (Kinds), the
// JSON body a webhook receives (Notification) and how it is signed
// (Sign, Verify). The workflow decides what to send; the DeliverNotifications
// activity sends it.
package notify
