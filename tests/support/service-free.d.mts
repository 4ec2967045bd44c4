export declare const SERVICE_FREE: string[];
