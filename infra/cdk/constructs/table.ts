import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE } from '../../table.js';

export interface GatewayTableProps {
  /** Blocks `DeleteTable` itself, on top of RETAIN (which only covers stack deletion). */
  readonly deletionProtection: boolean;
}

/** The single table, built from `infra/table.ts` so CDK and the local stack cannot drift. */
export class GatewayTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: GatewayTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE.ttlAttribute,
      stream: StreamViewType[TABLE.streamView],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection,
      // Ledger data: a stack deletion or a logical-id change must never drop the table.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of TABLE.indexes) {
      // Every key in shared/store/keys.ts is a string (amounts are encoded sortable), so S throughout.
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
  }
}
