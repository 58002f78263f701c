/** Names of the numbers the formats store: machines, PE resource types, packer section names. */

/** IMAGE_FILE_MACHINE_* (PE/COFF specification, "Machine Types"). */
export const PE_MACHINES: Record<number, string> = {
  332: "x86",
  34404: "x86-64",
  448: "arm",
  452: "arm",
  43620: "arm64",
  512: "ia64",
  20530: "riscv32",
  20580: "riscv64",
  358: "mips",
  496: "powerpc",
  3772: "efi-bytecode",
};

/** e_machine (System V ABI, "ELF Header"). */
export const ELF_MACHINES: Record<number, string> = {
  2: "sparc",
  3: "x86",
  8: "mips",
  20: "powerpc",
  21: "powerpc64",
  22: "s390",
  40: "arm",
  43: "sparc64",
  50: "ia64",
  62: "x86-64",
  183: "arm64",
  243: "riscv",
  258: "loongarch",
};

/** e_type. */
export const ELF_TYPES: Record<number, string> = {
  1: "relocatable",
  2: "executable",
  3: "shared",
  4: "core",
};

/** Mach-O cputype (mach/machine.h): the 64-bit ABI flag is 0x01000000. */
export const MACHO_CPUS: Record<number, string> = {
  7: "x86",
  16777223: "x86-64",
  12: "arm",
  16777228: "arm64",
  33554444: "arm64_32",
  18: "powerpc",
  16777234: "powerpc64",
};

/** Mach-O filetype. */
export const MACHO_FILETYPES: Record<number, string> = {
  1: "object",
  2: "executable",
  6: "dylib",
  7: "dylinker",
  8: "bundle",
  10: "dsym",
  11: "kext",
};

/** RT_* resource types (winuser.h). */
export const PE_RESOURCE_TYPES: Record<number, string> = {
  1: "CURSOR",
  2: "BITMAP",
  3: "ICON",
  4: "MENU",
  5: "DIALOG",
  6: "STRING",
  7: "FONTDIR",
  8: "FONT",
  9: "ACCELERATOR",
  10: "RCDATA",
  11: "MESSAGETABLE",
  12: "GROUP_CURSOR",
  14: "GROUP_ICON",
  16: "VERSION",
  17: "DLGINCLUDE",
  19: "PLUGPLAY",
  20: "VXD",
  21: "ANICURSOR",
  22: "ANIICON",
  23: "HTML",
  24: "MANIFEST",
};

/** PE subsystems (IMAGE_SUBSYSTEM_*). */
export const PE_SUBSYSTEMS: Record<number, string> = {
  1: "native",
  2: "windows_gui",
  3: "windows_cui",
  7: "posix_cui",
  9: "windows_ce_gui",
  10: "efi_application",
  11: "efi_boot_service_driver",
  12: "efi_runtime_driver",
  14: "xbox",
  16: "windows_boot_application",
};

/** Section names packers and protectors leave behind, and who leaves them. */
export const PACKER_SECTIONS: Record<string, string> = {
  upx0: "UPX",
  upx1: "UPX",
  upx2: "UPX",
  "upx!": "UPX",
  ".upx0": "UPX",
  ".upx1": "UPX",
  ".aspack": "ASPack",
  ".adata": "ASPack",
  ".mpress1": "MPRESS",
  ".mpress2": "MPRESS",
  ".petite": "Petite",
  ".nsp0": "NsPack",
  ".nsp1": "NsPack",
  ".themida": "Themida",
  ".winlice": "WinLicense",
  ".vmp0": "VMProtect",
  ".vmp1": "VMProtect",
  ".vmp2": "VMProtect",
  ".enigma1": "Enigma",
  ".enigma2": "Enigma",
  pec2: "PECompact",
  pec2to: "PECompact",
  ".packed": "unknown packer",
  ".perplex": "Perplex",
  ".yp": "Y0da",
  ".kkrunchy": "kkrunchy",
  ".pelock": "PELock",
  ".rlpack": "RLPack",
  ".mew": "MEW",
  "fsg!": "FSG",
};

export const nameOf = (table: Record<number, string>, value: number | null): string | null =>
  value === null ? null : (table[value] ?? null);
