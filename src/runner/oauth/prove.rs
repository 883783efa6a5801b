//! Signs the DPoP proofs the machine plans (`skiff_core::oauth::dpop::ProofPlan`): the key
//! pair from the store (`platform::webcrypto::dpop_key`, made the first time), random bytes
//! for the `jti`, the clock for `iat`, the access token's SHA-256 for `ath`, the signature.
//! Core builds and finishes the JWT; this draws, digests and signs, and decides nothing.

use skiff_core::oauth::dpop::{finish_proof, proof_input, ProofFor, ProofPlan, PublicJwk};
use skiff_core::oauth::jwt::JTI_BYTES;

use super::hub::now;
use crate::platform::webcrypto;

/// The compact proof for `plan`, or why it could not be made (the browser's words).
pub(super) async fn sign(plan: &ProofPlan) -> Result<String, String> {
    let key = webcrypto::dpop_key(&plan.key)
        .await
        .map_err(|e| e.to_string())?;
    let digest = match &plan.access_token {
        Some(token) => Some(
            webcrypto::sha256(token.as_bytes())
                .await
                .map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    let random = webcrypto::random_bytes(JTI_BYTES).map_err(|e| e.to_string())?;
    let public = PublicJwk {
        x: key.x.clone(),
        y: key.y.clone(),
    };
    let proof = ProofFor {
        htm: &plan.htm,
        url: &plan.url,
        access_token_sha256: digest.as_ref(),
        nonce: plan.nonce.as_deref(),
    };
    let input = proof_input(&public, &proof, now(), &random).map_err(|e| e.to_string())?;
    let signature = webcrypto::sign_dpop(&key, input.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    finish_proof(&input, &signature).map_err(|e| e.to_string())
}
