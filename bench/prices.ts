/**
 * Published AWS prices, us-east-1, on-demand, free tiers NOT applied (a gateway account may have used them up).
 * Each constant names the page that publishes it and the date it was written down here (2026-11-27), from the
 * prices those pages list (DynamoDB's on-demand prices as cut on 2024-11-01); the pages were not fetched again on
 * that date, so re-check them before quoting a figure as current.
 */

/** Lambda, arm64 (GatewayFunction builds every function for arm64), first 6 billion GB-s a month. 2026-11-27, https://aws.amazon.com/lambda/pricing/ */
export const LAMBDA_ARM64_PER_GB_SECOND = 0.0000133334;
/** Lambda requests. 2026-11-27, https://aws.amazon.com/lambda/pricing/ */
export const LAMBDA_PER_REQUEST = 0.2 / 1e6;

/** DynamoDB on-demand write request unit (since the 2024-11-01 price cut, from 1.25). 2026-11-27, https://aws.amazon.com/dynamodb/pricing/on-demand/ */
export const DYNAMODB_PER_WRU = 0.625 / 1e6;
/** DynamoDB on-demand read request unit (since the 2024-11-01 price cut, from 0.25). 2026-11-27, https://aws.amazon.com/dynamodb/pricing/on-demand/ */
export const DYNAMODB_PER_RRU = 0.125 / 1e6;

/** DynamoDB provisioned capacity, standard table class: a write capacity unit an hour. 2026-11-28, https://aws.amazon.com/dynamodb/pricing/provisioned/ */
export const DYNAMODB_PER_WCU_HOUR = 0.00065;
/** DynamoDB provisioned capacity, standard table class: a read capacity unit an hour. 2026-11-28, https://aws.amazon.com/dynamodb/pricing/provisioned/ */
export const DYNAMODB_PER_RCU_HOUR = 0.00013;
/** DynamoDB auto scaling's target utilisation (its console default, and what a target-tracking policy is usually given). */
export const DYNAMODB_TARGET_UTILISATION = 0.7;
/** CloudWatch alarms a DynamoDB target-tracking policy creates (one to scale out, one to scale in) per scaled dimension. */
export const ALARMS_PER_SCALED_DIMENSION = 2;

/** SQS standard queue requests (each 64 KB chunk of a payload; batches of up to 10 count once). 2026-11-27, https://aws.amazon.com/sqs/pricing/ */
export const SQS_PER_REQUEST = 0.4 / 1e6;

/** EventBridge custom events put on a bus. Scheduled rules on the default bus (what the stack's schedules are) cost nothing. 2026-11-27, https://aws.amazon.com/eventbridge/pricing/ */
export const EVENTBRIDGE_PER_CUSTOM_EVENT = 1.0 / 1e6;

/** KMS: a customer managed key, per month (asymmetric keys included). 2026-11-27, https://aws.amazon.com/kms/pricing/ */
export const KMS_PER_KEY_MONTH = 1.0;
/** KMS requests on symmetric keys (Encrypt, Decrypt, GenerateDataKey). 2026-11-27, https://aws.amazon.com/kms/pricing/ */
export const KMS_PER_SYMMETRIC_REQUEST = 0.03 / 10_000;
/** KMS requests on asymmetric keys other than RSA 2048 (Sign, GetPublicKey on secp256k1 and Ed25519 keys). 2026-11-27, https://aws.amazon.com/kms/pricing/ */
export const KMS_PER_ASYMMETRIC_REQUEST = 0.15 / 10_000;

/** S3 Standard PUT, COPY, POST, LIST requests. 2026-11-27, https://aws.amazon.com/s3/pricing/ */
export const S3_PER_PUT = 0.005 / 1_000;
/** S3 Standard GET, SELECT and other requests. 2026-11-27, https://aws.amazon.com/s3/pricing/ */
export const S3_PER_GET = 0.0004 / 1_000;

/** API Gateway HTTP API requests, first 300 million a month (each 512 KB counts as one). 2026-11-27, https://aws.amazon.com/api-gateway/pricing/ */
export const HTTP_API_PER_REQUEST = 1.0 / 1e6;

/** CloudWatch Logs ingestion, standard log class, per GB. 2026-11-27, https://aws.amazon.com/cloudwatch/pricing/ */
export const LOGS_PER_GB_INGESTED = 0.5;
/** CloudWatch Logs storage (archived, compressed), per GB-month; counted here on uncompressed bytes (an upper bound). 2026-11-27, https://aws.amazon.com/cloudwatch/pricing/ */
export const LOGS_PER_GB_MONTH_STORED = 0.03;
/** Custom metrics (EMF included), first 10,000, per metric (name + dimension values) a month. 2026-11-27, https://aws.amazon.com/cloudwatch/pricing/ */
export const CUSTOM_METRIC_PER_MONTH = 0.3;
/** Standard-resolution metric alarm, per alarm a month. 2026-11-27, https://aws.amazon.com/cloudwatch/pricing/ */
export const ALARM_PER_MONTH = 0.1;
/** Dashboard, per month, beyond the first 3 of the account. 2026-11-27, https://aws.amazon.com/cloudwatch/pricing/ */
export const DASHBOARD_PER_MONTH = 3.0;
export const FREE_DASHBOARDS = 3;

/** X-Ray traces recorded (every function has active tracing; the default rule samples 1 a second then 5 %). 2026-11-27, https://aws.amazon.com/xray/pricing/ */
export const XRAY_PER_TRACE = 5.0 / 1e6;

/**
 * Bytes CloudWatch Logs ingests per invocation besides the function's own lines: START, END and REPORT (with the
 * X-Ray trace id), as Lambda prints them. An estimate from the lines' format, about 370 bytes plus 26 bytes of
 * event overhead each (the ingestion pricing counts 26 bytes per event).
 */
export const LAMBDA_PLATFORM_LOG_BYTES = 370 + 3 * 26;
/** One HTTP API access log line of the stack's JSON format (15 fields), estimated at 480 bytes plus 26 of event overhead. */
export const ACCESS_LOG_BYTES = 480 + 26;

/** Minutes in a 30-day month: the invocations of a once-a-minute schedule. */
export const MINUTES_PER_MONTH = 30 * 24 * 60;
/**
 * Idle ReceiveMessage calls an SQS event source mapping makes a month: Lambda long-polls with (at least) 5 pollers,
 * each waiting up to 20 s, so about 15 requests a minute on an empty queue. An estimate from
 * https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html (scaling and processing), not a measurement.
 */
export const SQS_IDLE_RECEIVES_PER_MAPPING_MONTH = 5 * 3 * MINUTES_PER_MONTH;
