export { createClient, type ClientOptions, type InstructionInput, type ServiceClient, type TranslateInput } from './create-client.js';
export type { LiveGlossaryInfo } from './parse-responses.js';
export type { ClientMetricsHooks, RetryOptions } from './request-queue.js';
export { readApiKey, readBaseUrl, readAllowedHosts, checkAllowedHost, API_KEY_FILE_ENV, ALLOWED_HOSTS_ENV, type Env } from './read-env.js';
export { checkBaseUrl } from './check-base-url.js';
export {
  ServiceError,
  ServiceAuthError,
  isServiceError,
  isDestinationError,
  isRefusal,
  isServiceAuthError,
  isServiceFailure,
  isAuthError,
  type ServiceErrorCode,
  type ServiceFailure,
} from './errors.js';
