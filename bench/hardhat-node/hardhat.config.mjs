// The project `hardhat node` runs in for the bench's server rows (bench/servers.ts): no plugins,
// no contracts, Hardhat's default network (EDR in process, chain id 31337, the Hardhat mnemonic, automine).
export default {};
