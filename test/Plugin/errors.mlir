// RUN: %mlir-opt %s --load-dialect-plugin=%lamport_plugin -split-input-file -verify-diagnostics

// The dialect's verifiers run inside the stock mlir-opt: the plugin brings
// the whole dialect, not just its syntax.

!mb = !lamport.mailbox<tp = 8, capacity = 16, width = 8192>

func.func @publish_partial_fragment(%mb: !mb, %v: vector<12xbf16>, %s: i32,
                                    %r: index, %c: index) {
  // expected-error @+1 {{'lamport.mailbox.publish' op publishes 12 BF16, not whole 16-byte fragments: needs a multiple of 8 lanes}}
  lamport.mailbox.publish %v, %mb[%s, %r, %c] : vector<12xbf16>, !mb
  return
}

// -----

// expected-error @+2 {{expected ::mlir::lamport::Transport to be one of: multicast, unicast}}
// expected-error @+1 {{failed to parse Lamport_TransportAttr parameter 'value' which is to be a `::mlir::lamport::Transport`}}
func.func private @transport_unknown() attributes {t = #lamport.transport<broadcast>}
