/** What the status check needs: a read that proves the table answers. */
export interface TableProbe {
  ping(abortSignal: AbortSignal): Promise<void>;
}

export interface SystemPorts {
  readonly table: TableProbe;
}
