"""May this user take part, and is there room? The read side of registration.

Below the services, beside the selectors: the enums and answer type, the prefetched
context, the pure gates, the pipeline (`EligibilityService`) and the one capacity module
(the rule, the refusal and the locked check, which only reads under the caller's lock).
Selectors, errors and services import from here; nothing here imports a service or a
task, so the arrows run one way (docs/architecture/eligibility.md).
"""
