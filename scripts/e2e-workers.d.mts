export declare const e2eWorkers: () => number;
