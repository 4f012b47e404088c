/**
 * Table stream records as Lambda passes them (JSON attribute values, epoch seconds), and the CDK event filter
 * of the event router's mapping.
 */
import type { AttributeValue as SdkAttributeValue, _Record as SdkStreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { ROUTED_RECORDS } from '../../table.js';

/** The CDK event filter (infra/table.ts `ROUTED_RECORDS`): new outbox items and writes of a wallet's balance row. */
export function routedFilter(record: DynamoDBRecord): boolean {
  return ROUTED_RECORDS.some((r) => {
    const key = record.dynamodb?.Keys?.[r.key]?.S;
    return (r.eventNames as readonly string[]).includes(record.eventName ?? '') && typeof key === 'string' && key.startsWith(r.prefix);
  });
}

function toLambdaAttribute(value: SdkAttributeValue): AttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttribute) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  return { NULL: true };
}

function toLambdaImage(image: Record<string, SdkAttributeValue> | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  if (image) for (const [k, v] of Object.entries(image)) out[k] = toLambdaAttribute(v);
  return out;
}

/** A GetRecords record in the shape of a Lambda DynamoDB stream event record (JSON attribute values, epoch seconds). */
export function toLambdaStreamRecord(record: SdkStreamRecord, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb;
  const created = d?.ApproximateCreationDateTime;
  const out: DynamoDBRecord = {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource ?? 'aws:dynamodb',
    awsRegion: record.awsRegion,
    dynamodb: {
      ...(created !== undefined ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}),
      ...(d?.Keys ? { Keys: toLambdaImage(d.Keys) } : {}),
      ...(d?.NewImage ? { NewImage: toLambdaImage(d.NewImage) } : {}),
      ...(d?.OldImage ? { OldImage: toLambdaImage(d.OldImage) } : {}),
      SequenceNumber: d?.SequenceNumber,
      SizeBytes: d?.SizeBytes,
      StreamViewType: d?.StreamViewType,
    },
    eventSourceARN: streamArn,
  };
  if (record.userIdentity) out.userIdentity = record.userIdentity;
  return out;
}
