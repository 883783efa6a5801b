//! Performs one `AuthCommand`: a fetch through the page's fetch (its CORS proxy already in the
//! URL, put there by the machine), with a DPoP proof when the machine asks (`prove`), random
//! bytes and a digest for PKCE, a signature for a client assertion, the sign-in window, the sealed store, an answer to a waiting request, the card's
//! sentence, a reconnect. Each answer goes back to the machine of the same generation, and the
//! machine is driven again.
//!
//! It decides nothing; a failure is handed to the machine as what it is (no answer, CORS, a
//! signature that could not be made), which says what it means.

use skiff_core::http::HttpRequest;
use skiff_core::oauth::dpop::{ProofPlan, NONCE_HEADER, PROOF_HEADER};
use skiff_core::oauth::jwt::{parse_private_key, SigningAlg, JTI_BYTES};
use skiff_core::oauth::machine_types::FetchId;
use skiff_core::oauth::pkce::{state_from_random, Verifier, VERIFIER_BYTES};
use skiff_core::oauth::stored::{dpop_key_name, ServerField, PENDING_KEY};
use skiff_core::oauth::{AuthCommand, FetchFailure};
use wasm_bindgen_futures::spawn_local;

use super::hub::{self, now, with_machine};
use super::{callback, prove, vault};
use crate::platform::fetch::{self, FetchError};
use crate::platform::webcrypto::{self, SignWith};
use crate::platform::{online, popup};

pub(super) fn perform(server: &str, generation: u64, command: AuthCommand) {
    let server = server.to_string();
    match command {
        AuthCommand::Fetch { id, request } => spawn_local(send(server, generation, id, request)),
        AuthCommand::FetchWithProof { id, request, proof } => {
            spawn_local(send_proved(server, generation, id, request, proof))
        }
        AuthCommand::PreparePkce => spawn_local(pkce(server, generation)),
        AuthCommand::Sign { id, alg } => spawn_local(sign(server, generation, id, alg)),
        AuthCommand::OpenAuthorization { url, pending } => callback::open(&server, &url, pending),
        AuthCommand::CloseAuthorization => {
            callback::close(&server);
            popup::session_remove(PENDING_KEY);
        }
        AuthCommand::Store(c) => {
            hub::records_changed((&c.issuer, &c.resource), Some(&c));
            spawn_local(async move {
                if let Err(e) = vault::save_credentials(&c).await {
                    hub::notify(format!(
                        "The sign-in could not be stored ({e}); it lasts until this page closes."
                    ));
                }
            });
        }
        AuthCommand::Delete { issuer, resource } => {
            hub::records_changed((&issuer, &resource), None);
            vault::delete_credentials(&issuer, &resource);
            // The key the tokens were bound to goes with them (a next sign-in makes its own).
            let key = dpop_key_name(&issuer, &resource);
            spawn_local(async move { webcrypto::forget_dpop_key(&key).await });
        }
        AuthCommand::Resume {
            waiter,
            authorization,
        } => hub::answer(&server, waiter, Some(authorization)),
        // The request goes on as it is: the card says why (the machine's status).
        AuthCommand::Fail { waiter, .. } => hub::answer(&server, waiter, None),
        AuthCommand::Status(_) => hub::show_status(&server),
        AuthCommand::Connect => {
            if let Some(h) = hub::host() {
                (h.connect)(&server);
            }
        }
    }
}

/// One fetch for the machine. A fetch that got no answer while online is probed once with a
/// request that needs no CORS: a server that answers that is up, so CORS hid the answer.
async fn send(server: String, generation: u64, id: FetchId, request: HttpRequest) {
    let answer = answer_of(&request)
        .await
        .map(|(status, body, _)| (status, body));
    let at = now();
    let handled = with_machine(&server, generation, |m| match answer {
        Ok((status, body)) => m.handle_response(at, id, status, &body),
        Err(failure) => m.handle_fetch_failed(at, id, failure),
    });
    if handled.is_some() {
        hub::drive(&server);
    }
}

/// A token request with its DPoP proof: signed as the machine planned it, sent, and answered
/// with the server's `DPoP-Nonce` header (the machine resends for a nonce, not this).
async fn send_proved(
    server: String,
    generation: u64,
    id: FetchId,
    mut request: HttpRequest,
    plan: ProofPlan,
) {
    let answer = match prove::sign(&plan).await {
        Ok(proof) => {
            request
                .headers
                .retain(|(n, _)| !n.eq_ignore_ascii_case(PROOF_HEADER));
            request.headers.push((PROOF_HEADER.into(), proof));
            answer_of(&request).await
        }
        Err(why) => Err(FetchFailure::Proof(why)),
    };
    let at = now();
    let handled = with_machine(&server, generation, |m| match answer {
        Ok((status, body, nonce)) => {
            m.handle_proved_response(at, id, status, &body, nonce.as_deref())
        }
        Err(failure) => m.handle_fetch_failed(at, id, failure),
    });
    if handled.is_some() {
        hub::drive(&server);
    }
}

/// Status, body and `DPoP-Nonce` header of `request`'s answer, or why there is none.
async fn answer_of(request: &HttpRequest) -> Result<(u16, String, Option<String>), FetchFailure> {
    match fetch::send(request, None).await {
        Ok(response) => {
            let status = response.status;
            let nonce = response.header(NONCE_HEADER).map(str::to_string);
            match response.text().await {
                Ok(body) => Ok((status, body, nonce)),
                Err(e) => Err(FetchFailure::Network(e.to_string())),
            }
        }
        Err(FetchError::Network(detail)) => {
            if online::is_online() && fetch::reachable(&request.url, None).await {
                Err(FetchFailure::Cors)
            } else {
                Err(FetchFailure::Network(detail))
            }
        }
        Err(e) => Err(FetchFailure::Network(e.to_string())),
    }
}

/// The PKCE verifier from `VERIFIER_BYTES` random bytes, its SHA-256, and a state.
async fn pkce(server: String, generation: u64) {
    let made = async {
        let bytes: [u8; VERIFIER_BYTES] = webcrypto::random_bytes(VERIFIER_BYTES)?
            .try_into()
            .map_err(|_| webcrypto::CryptoError("too few random bytes".into()))?;
        let verifier = Verifier::from_random(&bytes);
        let digest = webcrypto::sha256(verifier.as_str().as_bytes()).await?;
        let state = state_from_random(&webcrypto::random_bytes(16)?);
        Ok::<_, webcrypto::CryptoError>((verifier.with_digest(&digest), state))
    }
    .await;
    match made {
        Ok((pkce, state)) => {
            if with_machine(&server, generation, |m| m.handle_pkce(now(), pkce, state)).is_some() {
                hub::drive(&server);
            }
        }
        Err(e) => hub::notify(format!(
            "Signing in needs the browser's Web Crypto, which refused ({e}). Open Skiff over \
             https:// (or localhost) and sign in again."
        )),
    }
}

/// The client assertion: the machine gives the bytes to sign, the stored key signs them.
async fn sign(server: String, generation: u64, id: FetchId, alg: SigningAlg) {
    let Ok(jti) = webcrypto::random_bytes(JTI_BYTES) else {
        return;
    };
    let Some(input) = with_machine(&server, generation, |m| {
        m.handle_assertion_random(now(), id, &jti)
    })
    .flatten() else {
        hub::drive(&server);
        return;
    };
    let signed = async {
        let pem = vault::sealed(&ServerField::Key.key(&server))
            .await
            .ok_or("no private key is stored for this server")?;
        let key = parse_private_key(&pem).map_err(|e| e.to_string())?;
        let with = match alg {
            SigningAlg::ES256 => SignWith::Es256,
            SigningAlg::RS256 => SignWith::Rs256,
        };
        webcrypto::sign_pkcs8(&key.der, with, input.as_bytes())
            .await
            .map_err(|e| e.to_string())
    }
    .await;
    let done = with_machine(&server, generation, |m| match &signed {
        Ok(signature) => m.handle_signature(now(), id, Ok(signature)),
        Err(e) => m.handle_signature(now(), id, Err(e.as_str())),
    });
    if done.is_some() {
        hub::drive(&server);
    }
}
