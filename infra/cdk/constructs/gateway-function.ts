import type { Duration } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { isAbsolute, join, resolve } from 'node:path';
import { acknowledge, IAM4_LAMBDA_BASIC, policyOf, REASONS } from '../acknowledge.js';

/**
 * How every function is bundled (esbuild options the CDK construct and the benchmarks share). CommonJS, `index.js`:
 * the Lambda runtime loads a `.js` handler with `require`, and the SDK packages it ships are CommonJS, so the bundle
 * loads them with `require` as well. An ES module bundle imported them through Node's CommonJS interop, which first
 * lexes each SDK module's source for its exports: about half of what loading the DynamoDB client costs
 * (docs/benchmarks.md, "Cold start"). `import.meta.url` (files read beside the bundle) is defined from `__filename`
 * by the banner, and a dynamic `import()` of an SDK client becomes a `require` too.
 */
export const BUNDLE = {
  file: 'index.js',
  format: 'cjs',
  banner: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;",
  define: { 'import.meta.url': '__importMetaUrl' },
  supported: { 'dynamic-import': false },
} as const;

export interface GatewayFunctionProps {
  /** Entry module relative to `rootDir` (as in infra/definition.ts). */
  readonly entry: string;
  /** Repository root: entries, package-lock.json and the esbuild project root. */
  readonly rootDir: string;
  readonly description: string;
  readonly timeout: Duration;
  readonly memorySize?: number;
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Files relative to `rootDir` (a package's included: `node_modules/@scope/...`) copied beside the bundle
   * (`index.js`) under their own names, read by the function at run time.
   */
  readonly files?: readonly string[];
  /**
   * Whether Node maps stack traces through the bundle's source map itself (`NODE_OPTIONS=--enable-source-maps`,
   * the default), which has it read and parse the map while importing the bundle, on every cold start. The API
   * functions pass false: the one place that logs their unexpected errors maps those stacks when it logs them
   * (shared/observability/stack-map.ts).
   */
  readonly sourceMapsAtLoad?: boolean;
  /**
   * Where Lambda puts an asynchronous event (a schedule's) once its own retries are spent. Only for functions
   * invoked asynchronously: the others are acknowledged as synchronous (REASONS.syncInvocation).
   */
  readonly deadLetterQueue?: IQueue;
}

/** The newest Node.js runtime Lambda offers (and aws-cdk-lib knows), and the esbuild target matching it. */
export const RUNTIME = Runtime.NODEJS_24_X;
export const ESBUILD_TARGET = 'node24';

/** The SDK packages taken from the Lambda runtime instead of the bundle. */
export const AWS_SDK_IN_RUNTIME = ['@aws-sdk/client-*', '@aws-sdk/lib-dynamodb', '@aws-sdk/util-dynamodb'];

/** One Lambda of the gateway: Node.js 24 on arm64, bundled locally by esbuild as minified CommonJS (BUNDLE), traced by X-Ray. */
export class GatewayFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: GatewayFunctionProps) {
    if (isAbsolute(props.entry)) throw new Error(`Entry "${props.entry}" must be relative to the repository root`);
    const files = props.files ?? [];
    for (const file of files) {
      if (isAbsolute(file) || file.split(/[\\/]/).includes('..') || !/^[\w@./-]+$/.test(file)) {
        throw new Error(`File "${file}" must be a plain path inside the repository root`);
      }
    }
    // Declared before super() only to hand it in; the log group lives next to the function.
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH });
    super(scope, id, {
      entry: resolve(props.rootDir, props.entry),
      handler: 'handler',
      projectRoot: props.rootDir,
      depsLockFilePath: join(props.rootDir, 'package-lock.json'),
      runtime: RUNTIME,
      architecture: Architecture.ARM_64,
      description: props.description,
      timeout: props.timeout,
      memorySize: props.memorySize ?? 1024,
      logGroup,
      tracing: Tracing.ACTIVE,
      ...(props.deadLetterQueue ? { deadLetterQueue: props.deadLetterQueue } : {}),
      environment: { ...props.environment, ...(props.sourceMapsAtLoad === false ? {} : { NODE_OPTIONS: '--enable-source-maps' }) },
      bundling: {
        format: OutputFormat.CJS,
        minify: true,
        sourceMap: true,
        // Stack traces need the mappings, not the sources: a map without them is a fraction of the size, and Node
        // reads it at load where NODE_OPTIONS=--enable-source-maps (the API functions map theirs when logging).
        sourcesContent: false,
        target: ESBUILD_TARGET,
        // Local esbuild only: synth must work offline and without Docker.
        forceDockerBundling: false,
        mainFields: ['module', 'main'],
        banner: BUNDLE.banner,
        define: { ...BUNDLE.define },
        esbuildArgs: Object.fromEntries(Object.entries(BUNDLE.supported).map(([feature, on]) => [`--supported:${feature}`, String(on)])),
        // The Node.js runtime ships the AWS SDK v3 clients and the DynamoDB document client; what else the
        // functions use from the SDK (the S3 presigner of the export downloads) is bundled with them.
        externalModules: AWS_SDK_IN_RUNTIME,
        ...(files.length > 0
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) => files.map((file) => `cp "${join(inputDir, file)}" "${outputDir}"`),
              },
            }
          : {}),
      },
    });
    acknowledge(this.role?.node.defaultChild ?? this, IAM4_LAMBDA_BASIC, REASONS.lambdaBasic);
    acknowledge(policyOf(this), 'AwsSolutions-IAM5[Resource::*]', REASONS.xray);
  }
}
